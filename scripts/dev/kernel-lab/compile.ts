// Compiles a checkout's TypeScript to JavaScript for the kernel lab, one .js beside where each .ts
// is (a tree the VM lays over the checkout), so the tests start with plain `node` instead of
// `node --import tsx`: under qemu's TCG emulation tsx's loader thread and esbuild service cost
// 10-15 s per process, node alone about 1 s. Relative imports of ".ts" become ".js"; type-only
// syntax is dropped as tsx drops it (esbuild, with the checkout's tsconfig). Files keep their
// directory, so import.meta.dirname and relative paths mean what they mean in the checkout.
// tap itself is bundled into one file (node_modules/.kernel-lab/tap.mjs) that the tests import
// instead of 'tap': loading tap's few hundred modules over 9p takes 20-35 s under emulation.
//
// Usage: node --import tsx scripts/dev/kernel-lab/compile.ts REPO OUT_DIR
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { buildSync, transformSync } from 'esbuild';

/** The source directories tests import from (tsconfig.json's include, less bench). */
const SOURCE_DIRS = ['lib', 'plugins', 'tools', 'runtime', 'test-support', 'e2e', 'scripts'];

/** Where the bundled tap lies, from the checkout's root. */
export const TAP_BUNDLE = 'node_modules/.kernel-lab/tap.mjs';

/** Rewrites relative module specifiers ending in .ts (static and dynamic imports, re-exports), and 'tap' to `tapPath`. */
export function rewriteSpecifiers(js: string, tapPath: string): string {
  return js
    .replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"\n]*?)\.ts\2/g, '$1$2$3.js$2')
    .replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])tap\2/g, `$1$2${tapPath}$2`);
}

/** tap and everything it imports, as one ES module at OUT/TAP_BUNDLE (which lies at the checkout's TAP_BUNDLE in the VM). */
function bundleTap(repo: string, out: string): void {
  buildSync({
    stdin: { contents: "export * from 'tap'; export { default } from 'tap';", resolveDir: repo, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: join(out, TAP_BUNDLE),
    // the few CommonJS modules left outside (optional ones) are required from the checkout's node_modules
    banner: { js: "import { createRequire as __kernelLabRequire } from 'node:module'; const require = __kernelLabRequire(import.meta.url);" },
    logLevel: 'error',
  });
}

function* tsFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') yield* tsFiles(p);
    } else if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) yield p;
  }
}

export function compile(repo: string, out: string): number {
  const tsconfigRaw = readFileSync(join(repo, 'tsconfig.json'), 'utf8');
  bundleTap(repo, out);
  const tapPath = join(repo, TAP_BUNDLE);
  let n = 0;
  for (const d of SOURCE_DIRS) {
    let files: Generator<string>;
    try {
      files = tsFiles(join(repo, d));
    } catch {
      continue;
    }
    for (const file of files) {
      const rel = relative(repo, file);
      const { code } = transformSync(readFileSync(file, 'utf8'), {
        loader: 'ts',
        format: 'esm',
        target: 'node20',
        sourcefile: file,
        tsconfigRaw,
      });
      const dest = join(out, rel.replace(/\.ts$/, '.js'));
      mkdirSync(dirname(dest), { recursive: true });
      writeFileSync(dest, rewriteSpecifiers(code, tapPath));
      n++;
    }
  }
  return n;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [repo, out] = process.argv.slice(2);
  if (repo === undefined || out === undefined) throw new Error('usage: compile.ts REPO OUT_DIR');
  compile(repo, out);
}
