// Running the built runtime CLI, cni-run, as an operator would: in the netns that
// plays the node, with a clean environment, against a conf dir and cache dir of the test's own.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { BASE_ENV, DIST_BIN, tempDir } from './plugins.ts';
import { tryRun } from '../../test-support/sh.ts';

export const CNI_RUN = join(DIST_BIN, 'cni-run');

export interface CniRunOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** `cni-run ARGS…`, inside netns `nodeNetns` when given. */
export function cniRun(args: readonly string[], o: { nodeNetns?: string; env?: Readonly<Record<string, string>> } = {}): Promise<CniRunOutput> {
  const env = Object.entries({ ...BASE_ENV, ...o.env }).map(([k, v]) => `${k}=${v}`);
  const cmd = ['env', '-i', ...env, CNI_RUN, ...args];
  return o.nodeNetns === undefined ? tryRun(cmd[0] as string, cmd.slice(1)) : tryRun('ip', ['netns', 'exec', o.nodeNetns, ...cmd]);
}

/** A conf dir (and a cache dir beside it) holding `lists`, each as <file> in that order. */
export function confDirWith(t: Test, lists: Readonly<Record<string, unknown>>): { confDir: string; cacheDir: string } {
  const base = tempDir(t, 'cnits-cnirun-');
  const confDir = join(base, 'net.d');
  mkdirSync(confDir);
  for (const [file, list] of Object.entries(lists)) writeFileSync(join(confDir, file), typeof list === 'string' ? list : JSON.stringify(list, null, 2));
  return { confDir, cacheDir: join(base, 'cache') };
}
