// Recognising one of our own IPAM executables on CNI_PATH, in either packaged form: a
// single-file bundle (scripts/build/build.ts writes `// cni-ts plugin: <name>` as line 3 of each;
// reading those few bytes is much cheaper than starting another Node process,
// docs/architecture.md#in-process-ipam), or a name of the multicall binary this process is
// itself running (the Bun form, scripts/build/build-bun.ts), which runs the program it is invoked as.
import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Line 3 of each of our single-file executables, before the plugin's name: written by scripts/build/build.ts. */
export const PLUGIN_MARKER = '// cni-ts plugin: ';
const HEAD_BYTES = 512;

export type OurIpam = 'host-local' | 'static';
const IN_PROCESS: readonly string[] = ['host-local', 'static'] satisfies OurIpam[];

/** The plugin name on line 3, if the file starts like one of our executables (#!, the line that starts node, the marker). */
export function readMarker(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    const [shebang, , third] = buf.subarray(0, n).toString('latin1').split('\n');
    if (!shebang?.startsWith('#!') || !third?.startsWith(PLUGIN_MARKER)) return undefined;
    return third.slice(PLUGIN_MARKER.length);
  } finally {
    closeSync(fd);
  }
}

/** A file's identity ("dev:ino", as the starter writes CNI_TS_STARTER); undefined when it cannot be read. */
function fileId(path: string): string | undefined {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * The name `file` runs as when it is (a hard link of, or a symlink to) the multicall binary
 * running this process, or a link of the starter that started it (runtime/bun-starter.c) with
 * this binary beside it: exec'd, it would dispatch on that name to the code this process
 * carries. Only asked when the file is our own executable (never in the bundle form, whose
 * executable is node or bun itself, unless the file is that runtime: then the check says no).
 */
function multicallName(file: string): string | undefined {
  const id = fileId(file);
  const self = fileId(process.execPath);
  if (id === undefined || self === undefined) return undefined;
  if (id !== self && !startsThisBinary(file, id, self)) return undefined;
  return isBunStandalone() ? basename(file) : undefined;
}

/**
 * The starter puts its own file's identity in CNI_TS_STARTER and runs the `cni-ts` in the
 * directory it really lies in: a file that is that starter, lying beside this very binary
 * (identity `self`), runs this binary.
 */
function startsThisBinary(file: string, id: string, self: string): boolean {
  if (id !== process.env['CNI_TS_STARTER']) return false;
  try {
    return fileId(join(dirname(realpathSync(file)), 'cni-ts')) === self;
  } catch {
    return false;
  }
}

/** A `bun build --compile` executable: its entry is in Bun's embedded file system. */
function isBunStandalone(): boolean {
  const main = (globalThis as { Bun?: { main?: unknown } }).Bun?.main;
  return typeof main === 'string' && main.startsWith('/$bunfs/');
}

/**
 * Which of our allocators the executable is, when running it in-process gives what exec
 * would. A file we may not execute is left to exec, which then fails as it would for any
 * plugin.
 */
export function ourIpam(file: string): OurIpam | undefined {
  const name = readMarker(file) ?? multicallName(file);
  if (name === undefined || !IN_PROCESS.includes(name)) return undefined;
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return undefined;
  }
  return name as OurIpam;
}
