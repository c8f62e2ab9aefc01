// The Bun form's layout (scripts/build/build-bun.ts, `cni-ts install`): each program's name is
// a link of the starter, which runs the binary `cni-ts` lying beside it.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The binary that the program `file` runs: the `cni-ts` beside it, unless `file` is that binary
 * or there is none. The bundles' directory has a `cni-ts` too (the installer's bundle), a script
 * that no other bundle runs: only a compiled `cni-ts` counts.
 */
export function binaryBeside(file: string): string | undefined {
  const binary = join(dirname(file), 'cni-ts');
  return existsSync(binary) && statSync(binary).ino !== statSync(file).ino && startsWithElf(binary) ? binary : undefined;
}

function startsWithElf(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.toString('latin1') === '\x7fELF';
  } finally {
    closeSync(fd);
  }
}
