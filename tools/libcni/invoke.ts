// Executing one plugin binary the way libcni's invoke package does: CNI_* env,
// config on stdin, result or error object on stdout.
import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';
import { findFileIn, runProgram } from '../../lib/cni-spec/run-program.ts';

export type Verb = 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS' | 'VERSION';

export interface InvokeArgs {
  readonly command: Verb;
  readonly containerId?: string;
  readonly netns?: string;
  readonly ifname?: string;
  readonly args?: string;
  readonly cniPath: readonly string[];
  /** the environment the plugin inherits besides CNI_*; defaults to a minimal PATH */
  readonly baseEnv?: Readonly<Record<string, string>>;
  /**
   * A command prefix the plugin runs under, e.g. ['ip', 'netns', 'exec', 'node1']: tests
   * let a throwaway netns play the node, so the real host is never touched.
   */
  readonly wrap?: readonly string[];
}

export interface ExecOutput {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A plugin's error, as libcni reports it: the CNI code when the plugin printed one. */
export class PluginError extends Error {
  /** which plugin of which list, in libcni's words: plugin type="bridge" name="net" failed (add) */
  context?: string;

  constructor(
    message: string,
    readonly code: number | undefined,
    readonly details: string | undefined,
    readonly output: ExecOutput,
  ) {
    super(message);
  }
}

/** One directory of the plugin path, and why the plugin was not taken from it. */
export interface SearchedDir {
  readonly dir: string;
  readonly why: string;
}

/** libcni's message; `searched` says, per directory, what was (not) there, for a person to act on. */
export class PluginNotFoundError extends Error {
  constructor(
    readonly type: string,
    readonly searched: readonly SearchedDir[],
  ) {
    super(`failed to find plugin "${type}" in path [${searched.map((s) => s.dir).join(' ')}]`);
    this.name = 'PluginNotFoundError';
  }
}

function whyNotIn(dir: string, type: string): string {
  try {
    if (!statSync(dir).isDirectory()) return 'not a directory';
  } catch {
    return 'no such directory';
  }
  const file = join(dir, type);
  try {
    if (!statSync(file).isFile()) return `${type} is not a regular file`;
  } catch {
    return `no file ${type}`;
  }
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return `${type} is not executable`;
  }
  return 'unreadable';
}

export function findPlugin(type: string, cniPath: readonly string[]): string {
  if (type.includes('/')) throw new Error(`invalid plugin name: ${type}`);
  const file = findFileIn(cniPath, type, { executable: true });
  if (file !== undefined) return file;
  throw new PluginNotFoundError(
    type,
    cniPath.map((dir) => ({ dir, why: whyNotIn(dir, type) })),
  );
}

export function pluginEnv(a: InvokeArgs): Record<string, string> {
  const env: Record<string, string> = { ...(a.baseEnv ?? { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }) };
  env['CNI_COMMAND'] = a.command;
  if (a.containerId !== undefined) env['CNI_CONTAINERID'] = a.containerId;
  if (a.netns !== undefined) env['CNI_NETNS'] = a.netns;
  if (a.ifname !== undefined) env['CNI_IFNAME'] = a.ifname;
  if (a.args !== undefined) env['CNI_ARGS'] = a.args;
  env['CNI_PATH'] = a.cniPath.join(':');
  return env;
}

export async function execRaw(file: string, env: Record<string, string>, stdin: string, wrap: readonly string[] = []): Promise<ExecOutput> {
  const cmd = wrap[0] ?? file;
  const args = wrap.length > 0 ? [...wrap.slice(1), file] : [];
  const o = await runProgram(cmd, args, stdin, { env });
  return { code: o.code, signal: o.signal, stdout: o.stdout.toString(), stderr: o.stderr.toString() };
}

// libcni's rules for turning a failed exec into an error (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/invoke/raw_exec.go).
export function errorFromOutput(o: ExecOutput): PluginError {
  const how = o.signal ? `signal: ${o.signal}` : `exit status ${o.code}`;
  if (o.stdout.trim() === '') {
    const msg = o.stderr.trim() === '' ? `netplugin failed with no error message: ${how}` : `netplugin failed: "${o.stderr.trim()}": ${how}`;
    return new PluginError(msg, undefined, undefined, o);
  }
  try {
    const e = JSON.parse(o.stdout) as { code?: number; msg?: string; details?: string };
    const text = e.details ? `${e.msg}; ${e.details}` : `${e.msg}`;
    return new PluginError(text, e.code, e.details, o);
  } catch {
    return new PluginError(`netplugin failed but error parsing its diagnostic message "${o.stdout.trim()}"`, undefined, undefined, o);
  }
}

/** Runs a plugin; resolves to its parsed stdout (undefined when empty) or rejects with a PluginError. */
export async function invoke(file: string, a: InvokeArgs, config: unknown): Promise<unknown> {
  const o = await execRaw(file, pluginEnv(a), JSON.stringify(config), a.wrap);
  if (o.code !== 0) throw errorFromOutput(o);
  return o.stdout.trim() === '' ? undefined : JSON.parse(o.stdout);
}
