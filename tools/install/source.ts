// Where `cni-ts install` takes the programs from, and which form they are. A source directory
// holds one form of one build:
//   - the Bun form: the binary `cni-ts` (an ELF executable) and the starter, under each program's
//     name (dist/bun/bin, or an install of it), or as the file `starter` (dist/bun);
//   - the bundles: one single-file script per program (dist/bin, or an install of it).
// By default it is the directory of the running program: the Bun binary's own, or the bundle's.
import { closeSync, lstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BINARY_PROGRAM, PROGRAM_NAMES } from '../../plugins/registry.ts';
import { fail, InstallError, sha256File } from './files.ts';
import type { Form, SourceFile } from './plan.ts';

export interface SourceEntry extends SourceFile {
  /** the file to copy */
  readonly path: string;
}

export interface Source {
  readonly dir: string;
  readonly form: Form;
  /** in install order: the Bun binary first */
  readonly files: readonly SourceEntry[];
}

function head(path: string, n: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const b = Buffer.alloc(n);
    return b.subarray(0, readSync(fd, b, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

const isElf = (path: string): boolean => head(path, 4)?.equals(Buffer.from('\x7fELF', 'latin1')) ?? false;
const isBundle = (path: string): boolean => head(path, 10)?.toString('latin1') === '#!/bin/sh\n';

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The directory the running program's files lie in. */
export function defaultSourceDir(): string {
  const bunMain = (globalThis as { Bun?: { main?: unknown } }).Bun?.main;
  if (typeof bunMain === 'string' && bunMain.startsWith('/$bunfs/')) return dirname(process.execPath);
  // A bundle: runtime/launcher.cjs gives argv[1] the path the runtime or the shell ran.
  const self = process.argv[1];
  if (self === undefined || !isBundle(self)) throw new InstallError('cannot tell where this program lies: give --source DIR');
  // A symlink to the bundle (say /usr/local/bin/cni-ts) stands for the directory it points into.
  return dirname(realpathSync(self));
}

function check(programs: readonly string[] | undefined): readonly string[] {
  if (programs === undefined) return PROGRAM_NAMES;
  for (const p of programs)
    if (!(PROGRAM_NAMES as readonly string[]).includes(p)) throw new InstallError(`--programs: "${p}" is not one of ours (${PROGRAM_NAMES.join(', ')})`);
  return [...new Set(programs)];
}

export function readSource(dir: string, programs?: readonly string[]): Source {
  const selected = check(programs);
  try {
    if (!lstatSync(dir).isDirectory()) throw new InstallError(`--source ${dir} is not a directory`);
  } catch (err) {
    if (err instanceof InstallError) throw err;
    fail('cannot use the source', dir, err);
  }
  const entry = (name: string, path: string): SourceEntry => {
    try {
      return { name, path, sha256: sha256File(path) };
    } catch (err) {
      fail('cannot read', path, err);
    }
  };
  const binary = join(dir, BINARY_PROGRAM);
  if (isFile(binary) && isElf(binary)) {
    // The starter: the file `starter`, else the program links (all one file, the build's).
    const starter = [join(dir, 'starter'), ...selected.filter((p) => p !== BINARY_PROGRAM).map((p) => join(dir, p))].find((f) => isFile(f) && isElf(f));
    if (starter === undefined)
      throw new InstallError(`${dir} holds the Bun binary cni-ts but no starter (neither ${join(dir, 'starter')} nor a program's link)`);
    const starterEntry = entry('starter', starter);
    const names = selected.filter((p) => p !== BINARY_PROGRAM);
    return { dir, form: 'bun', files: [entry(BINARY_PROGRAM, binary), ...names.map((name) => ({ name, path: starter, sha256: starterEntry.sha256 }))] };
  }
  const missing = selected.filter((p) => !isFile(join(dir, p)) || !isBundle(join(dir, p)));
  if (missing.length === selected.length) throw new InstallError(`${dir} holds neither form of cni-ts (no Bun binary cni-ts, no bundle): give --source DIR`);
  if (missing.length > 0) throw new InstallError(`${dir} lacks the bundles of ${missing.join(', ')}`);
  return { dir, form: 'bundle', files: selected.map((p) => entry(p, join(dir, p))) };
}
