// Running system tools from tests: always an argument array, never a shell string.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { NOT_ROOT } from './skip-reasons.ts';
import './spawn-env.ts';

const execFileP = promisify(execFile);

export async function run(cmd: string, args: readonly string[]): Promise<string> {
  const { stdout } = await execFileP(cmd, args, { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** Like run(), but a failure is an answer: resolves to the exit code and output. */
export async function tryRun(cmd: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileP(cmd, args, { maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

// Bind-mounts each source over its target (pairs of arguments up to "--") in the private mount
// namespace unshare made, in order, then runs what follows the "--".
const BINDS_THEN_EXEC = 'while [ "$1" != -- ]; do mount --bind "$1" "$2" || exit 125; shift 2; done; shift; exec "$@"';

/**
 * The command line that runs `cmd` with each directory `source` mounted over `target` (which
 * must exist), in order, in a mount namespace of its own: the machine's targets are neither
 * read nor written.
 */
export function withBindsOver(binds: readonly (readonly [source: string, target: string])[], cmd: readonly string[]): string[] {
  return ['unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', BINDS_THEN_EXEC, 'sh', ...binds.flat(), '--', ...cmd];
}

/** withBindsOver() with one directory. */
export function withDirOver(source: string, target: string, cmd: readonly string[]): string[] {
  return withBindsOver([[source, target]], cmd);
}

/**
 * The command line that runs the sh `script` with `args` in a mount namespace of its own and with
 * exactly `env`. `env -i`: tap adds NODE_OPTIONS with its own hooks to every child it sees
 * spawned, and those live under the repo, which a script may hide under a tmpfs.
 */
export function shInPrivateMounts(env: Record<string, string>, script: string, args: readonly string[]): string[] {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v}`);
  return ['env', '-i', ...vars, 'unshare', '-m', '--propagation', 'private', 'sh', '-c', script, 'sh', ...args];
}

/**
 * A plugin's stdout followed by a script's `@@state` line and what it printed after it: the
 * plugin's output, parsed as JSON when it is JSON, and the state lines.
 */
export function splitAtState(stdout: string): { out: string; json: any; state: string[] } {
  const [out = '', state = ''] = stdout.split('@@state\n');
  let json: any;
  try {
    json = JSON.parse(out);
  } catch {
    json = undefined;
  }
  return { out, json, state: state.split('\n').filter((l) => l !== '') };
}

/** The command prefix that runs a program inside netns `ns`. */
export const inNetns = (ns: string): string[] => ['ip', 'netns', 'exec', ns];

/** run() inside netns `ns`. */
export function nsRun(ns: string, cmd: string, args: readonly string[]): Promise<string> {
  return run('ip', ['netns', 'exec', ns, cmd, ...args]);
}

/** tryRun() inside netns `ns`: a failure is an answer (exit code and output). */
export function nsExec(ns: string, cmd: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return tryRun('ip', ['netns', 'exec', ns, cmd, ...args]);
}

export async function ipJson<T = unknown>(netns: string, args: readonly string[]): Promise<T> {
  return JSON.parse(await run('ip', ['-n', netns, '-j', ...args])) as T;
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The `skip` option of every e2e test: the reason when we cannot run, else false. */
export const needsRoot: string | false = isRoot ? false : NOT_ROOT;
