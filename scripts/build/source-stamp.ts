// Whether a built form is older than the sources: each build records a digest of what it was
// built from (dist/.sources-<form>), and `npm run e2e` compares it with the tree's before
// running a test, so an edit that was not rebuilt is never silently not tested. A digest of
// contents, not mtimes: a checkout or an edit undone rebuilds nothing, and a file restored with
// an old mtime is still seen. Node built-ins only, so the check costs a few tens of ms.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

export type BuiltForm = 'bundle' | 'bun';

// What goes into an executable: the code of every layer, the build code, the C sources and the
// compiled addon, the pinned dependencies (esbuild, Bun, zod, netlink) and the compiler options.
const SOURCE_DIRS = ['lib', 'plugins', 'tools', 'runtime', 'scripts/build', 'native'];
const SOURCE_FILES = ['package.json', 'package-lock.json', 'tsconfig.json'];
// Tests are not built in; node-gyp's intermediate files are, through the addon they make.
const skipped = (rel: string): boolean => rel.endsWith('.test.ts') || (rel.startsWith('native/build/') && !rel.endsWith('.node'));

function filesUnder(root: string, dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((rel) => !skipped(rel));
}

/** A digest of every source file's path and content. */
export function sourceDigest(root = ROOT): string {
  const files = [...SOURCE_DIRS.flatMap((d) => filesUnder(root, join(root, d))), ...SOURCE_FILES.filter((f) => existsSync(join(root, f)))].sort();
  const h = createHash('sha256');
  for (const f of files)
    h.update(f)
      .update('\0')
      .update(readFileSync(join(root, f)))
      .update('\0');
  return h.digest('hex');
}

const stampOf = (form: BuiltForm, root: string): string => join(root, 'dist', `.sources-${form}`);

/** Called by a build that succeeded, with the digest taken before it read the sources. */
export function recordBuild(form: BuiltForm, digest: string, root = ROOT): void {
  writeFileSync(stampOf(form, root), `${digest}\n`);
}

/** Why the form must be rebuilt, or undefined when it was built from the sources as they are. */
export function staleness(form: BuiltForm, root = ROOT): string | undefined {
  const stamp = stampOf(form, root);
  if (!existsSync(stamp)) return `no record of the sources it was built from (${relative(root, stamp)})`;
  return readFileSync(stamp, 'utf8').trim() === sourceDigest(root) ? undefined : 'the sources changed since it was built';
}
