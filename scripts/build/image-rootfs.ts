// What goes into the OCI image (scripts/build/image.ts), decided without touching anything: the
// Bun form's files under IMAGE_BIN_DIR and the shared objects the Bun binary loads, each at the
// path the dynamic loader asks for, so the image needs no ld.so.cache and no /etc at all. The
// starter is static and needs none.
import { join } from 'node:path';
import { BINARY_PROGRAM } from '../../plugins/registry.ts';
import { IMAGE_BIN_DIR } from './image-name.ts';

export class LddError extends Error {}

/**
 * The files `ldd BINARY` names (its output, as glibc's ldd prints it): each library it resolved
 * (`name => /path (0x…)`) and the loader (`/lib64/ld-linux-x86-64.so.2 (0x…)`). The vDSO has no
 * file and is left out; a library ldd could not find is an error, since the binary would not start.
 */
export function libsFromLdd(output: string): string[] {
  const files: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '' || /^(statically linked|not a dynamic executable)$/.test(line)) continue;
    const missing = /^(\S+) => not found$/.exec(line);
    if (missing) throw new LddError(`ldd: ${missing[1]} not found`);
    const m = /^(?:\S+ => )?(\/\S+) \(0x[0-9a-f]+\)$/.exec(line);
    if (m) files.push(m[1] as string);
    else if (!/^\S+ \(0x[0-9a-f]+\)$/.test(line)) throw new LddError(`ldd: a line not understood: ${JSON.stringify(line)}`);
  }
  return [...new Set(files)];
}

/** One file of the image: copied from `from` (its target, if a symlink), or a hard link of an earlier entry's `path`. */
export type RootfsEntry = { readonly path: string; readonly from: string } | { readonly path: string; readonly linkOf: string };

/**
 * The image's files, paths absolute inside it: the binary `cni-ts`, the starter under the first
 * program's name and every other program's name as a hard link of it (the layout
 * scripts/install.sh --bun makes, so a plugin knows its siblings by inode and the starter finds
 * the `cni-ts` beside it), then the libraries.
 */
export function planRootfs(o: { binary: string; starter: string; programs: readonly string[]; libs: readonly string[] }): RootfsEntry[] {
  // the program the binary is named for (the installer) is the binary itself, never a starter
  const [first, ...others] = o.programs.filter((p) => p !== BINARY_PROGRAM);
  if (first === undefined) throw new Error('no program to put in the image');
  const at = (name: string): string => join(IMAGE_BIN_DIR, name);
  return [
    { path: at(BINARY_PROGRAM), from: o.binary },
    { path: at(first), from: o.starter },
    ...others.map((p) => ({ path: at(p), linkOf: at(first) })),
    ...o.libs.map((lib) => ({ path: lib, from: lib })),
  ];
}
