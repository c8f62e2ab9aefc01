// What a plugin handler gets and what a plugin declares (docs/architecture.md#how-a-request-flows: handlers get a parsed
// request and return a result or throw; they never touch `process`).
import type { Result } from './result.ts';
import type { CniVersion } from './versions.ts';

export type Verb = 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS';

export interface CniRequest {
  command: Verb;
  containerId: string;
  netns: string;
  ifname: string;
  args: string;
  /** CNI_PATH split, empty entries dropped */
  path: string[];
  env: Readonly<Record<string, string | undefined>>;
  /** the config bytes exactly as received, for delegation */
  stdin: Buffer;
  /** the decoded config, keys as written: parse it with parseWithSchema */
  config: Record<string, unknown>;
  cniVersion: CniVersion;
  name: string;
  /** upgraded to the internal 1.1.0 shape; its cniVersion is the one it was written in */
  prevResult?: Result;
}

export interface PluginSpec {
  about: string;
  versions: readonly CniVersion[];
  // Plain functions, not methods: the dispatcher calls them detached from the spec.
  add: (req: CniRequest) => Promise<Result>;
  del: (req: CniRequest) => Promise<void>;
  check?: (req: CniRequest) => Promise<void>;
  status?: (req: CniRequest) => Promise<void>;
  gc?: (req: CniRequest) => Promise<void>;
}

export interface PluginIO {
  /** the executable's name, for the CNI_TIMING line */
  program?: string;
  env: Record<string, string | undefined>;
  readStdin(): Promise<Buffer>;
  stdout(s: string): void;
  stderr(s: string): void;
}
