// Recognising one of our own IPAM executables on CNI_PATH. scripts/build.ts writes
// `// cni-ts plugin: <name>` as line 2 of every executable; reading those few bytes is much
// cheaper than starting another Node process (docs/architecture.md#in-process-ipam).
import { accessSync, closeSync, constants, openSync, readSync } from 'node:fs';

const MARKER = '// cni-ts plugin: ';
const HEAD_BYTES = 128;

export type OurIpam = 'host-local' | 'static';
const IN_PROCESS: readonly string[] = ['host-local', 'static'] satisfies OurIpam[];

/** The plugin name on line 2, if the file starts like one of our executables. */
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
    const [shebang, second] = buf.subarray(0, n).toString('latin1').split('\n');
    if (!shebang?.startsWith('#!') || !second?.startsWith(MARKER)) return undefined;
    return second.slice(MARKER.length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Which of our allocators the executable is, when running it in-process gives what exec
 * would. A file we may not execute is left to exec, which then fails as it would for any
 * plugin.
 */
export function ourIpam(file: string): OurIpam | undefined {
  const name = readMarker(file);
  if (name === undefined || !IN_PROCESS.includes(name)) return undefined;
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return undefined;
  }
  return name as OurIpam;
}
