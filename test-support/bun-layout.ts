// The Bun form's layout (scripts/build/build-bun.ts, `cni-ts install`): each program's name is
// a link of the starter, which runs the binary `cni-ts` lying beside it.
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The binary that the program `file` runs: the `cni-ts` beside it, unless `file` is that binary (or there is none). */
export function binaryBeside(file: string): string | undefined {
  const binary = join(dirname(file), 'cni-ts');
  return existsSync(binary) && statSync(binary).ino !== statSync(file).ino ? binary : undefined;
}
