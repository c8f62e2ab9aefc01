// What both packaged forms share: the esbuild options, the native addons they carry, and the
// esbuild plugin that routes every native load to the loader of the form being built.
// scripts/build/build.ts makes the single-file bundles (dist/bin), scripts/build/build-bun.ts the Bun binary.
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { hexDigest } from '../../lib/cni-spec/digest.ts';
import { parseBarrel, rewriteImports, type BarrelMap } from './debarrel.ts';
import { netlinkEsm } from './netlink-esm.ts';
import { quickShapes } from './quick-shapes.ts';

export const root = resolve(import.meta.dirname, '..', '..');

// Our addon only: netlink's socket (and so its prebuilt binding) is replaced by ours
// (lib/linux/nl-socket.ts); only its pure encoders and decoders are bundled.
const nativePaths: Record<string, string> = {
  cni_native: join(root, 'native', 'build', 'Release', 'cni_native.node'),
};

export function sha256(bytes: Buffer | string): string {
  return hexDigest('sha256', bytes);
}

export interface NativeBlob {
  readonly name: string;
  readonly bytes: Buffer;
  /** its sha256 in hex (the first 16 digits name it on disk; all are checked on reuse) */
  readonly sha: string;
}

// Every executable carries every native: they are small (~150 KiB), and a plugin that could
// fail for a missing native on some code path is worse.
export function nativeBlobs(): NativeBlob[] {
  return Object.entries(nativePaths).map(([name, file]) => {
    if (!existsSync(file)) throw new Error(`native module ${name} not built: ${file} (run npm ci)`);
    const bytes = readFileSync(file);
    return { name, bytes, sha: sha256(bytes) };
  });
}

/**
 * lib/linux/natives.ts becomes `loader`, the source of a module of the form being built whose
 * `nativeModule(name)` returns an embedded native, never a file found on disk. Anything that
 * would load a native another way (netlink's socket module through node-gyp-build) fails the build.
 */
export function embedNatives(loader: string): Plugin {
  return {
    name: 'embed-natives',
    setup(b) {
      const nativesModule = join(root, 'lib', 'linux', 'natives');
      b.onResolve({ filter: /natives(\.ts)?$/ }, (args) =>
        (args.namespace === 'cni-natives' && args.path === 'natives') || resolve(args.resolveDir, args.path).replace(/\.ts$/, '') === nativesModule
          ? { path: 'natives', namespace: 'cni-natives' }
          : undefined,
      );
      b.onResolve({ filter: /^node-gyp-build$/ }, (args) => ({
        errors: [{ text: `${args.importer} loads a native through node-gyp-build; only lib/linux/natives.ts may load natives` }],
      }));
      b.onLoad({ filter: /.*/, namespace: 'cni-natives' }, () => ({ loader: 'ts', resolveDir: root, contents: loader }));
    },
  };
}

/** lib/cni-spec/builtin.ts in a bundle: the CommonJS `require` of the code it is bundled into. */
export const bundledBuiltins: Plugin = {
  name: 'bundled-builtins',
  setup(b) {
    const builtinModule = join(root, 'lib', 'cni-spec', 'builtin');
    b.onResolve({ filter: /builtin(\.ts)?$/ }, (args) =>
      resolve(args.resolveDir, args.path).replace(/\.ts$/, '') === builtinModule ? { path: 'builtin', namespace: 'cni-builtin' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'cni-builtin' }, () => ({ loader: 'js', contents: 'export function loadBuiltin(name) { return require(name); }' }));
  },
};

/**
 * netlink's encoders require node:os for one call, os.endianness(). Under Bun, loading node:os
 * costs ~6 ms of every netlink-using process (profiled); a typed-array probe answers the same.
 */
export const netlinkEndianness: Plugin = {
  name: 'netlink-endianness',
  setup(b) {
    b.onResolve({ filter: /^os$/ }, (args) =>
      /[/\\]node_modules[/\\]netlink[/\\]/.test(args.importer) ? { path: 'os', namespace: 'cni-netlink-os' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'cni-netlink-os' }, () => ({
      loader: 'js',
      contents: "export function endianness() { return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 'LE' : 'BE'; }",
    }));
  },
};

// The layers' barrels (scripts/build/debarrel.ts says why the bundles bypass them).
const BARRELS = ['lib/cni-spec/index.ts', 'lib/linux/index.ts', 'lib/linux/netfilter/index.ts', 'lib/linux/tc/index.ts'];

/** Our modules' imports from a barrel become imports from the modules that define the names. */
export const debarrel: Plugin = {
  name: 'debarrel',
  setup(b) {
    const barrels = new Map<string, BarrelMap>(BARRELS.map((f) => [join(root, f), parseBarrel(join(root, f))]));
    const ours = new RegExp(`^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(lib|plugins|tools|runtime|scripts)/.*\\.ts$`);
    b.onLoad({ filter: ours, namespace: 'file' }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      return { loader: 'ts', contents: rewriteImports(source, resolve(args.path, '..'), barrels) };
    });
  },
};

/** The esbuild options both forms use; minify whitespace and syntax, no renaming (measured). */
export const bundleOptions = {
  bundle: true,
  write: false,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  // ASCII output: the launcher decodes the bundle as latin1, the cheapest exact decoding.
  charset: 'ascii',
  legalComments: 'none',
  logLevel: 'warning',
} as const satisfies BuildOptions;

/**
 * A label for a build (CNI_TS_BUILD_LABEL in the environment): part of its version
 * (tools/install/build-info.ts) and so of every file's bytes. e2e/install/ builds the same sources
 * with another label, into another directory (CNI_TS_BUILD_OUT), to have an older build.
 */
export function buildLabel(): string {
  const l = process.env['CNI_TS_BUILD_LABEL'] ?? '';
  if (!/^[A-Za-z0-9.-]*$/.test(l)) throw new Error(`CNI_TS_BUILD_LABEL="${l}": letters, digits, . and - only`);
  return l;
}

/** Where a build writes (CNI_TS_BUILD_OUT, else dist/), and whether that is dist/ itself. */
export function buildOut(): { dir: string; isDist: boolean } {
  const out = process.env['CNI_TS_BUILD_OUT'];
  return out === undefined || out === '' ? { dir: join(root, 'dist'), isDist: true } : { dir: resolve(out), isDist: false };
}

// The schemas' shapes (lib/cni-spec/named-schema.ts), derived once per build.
let shapes: Promise<string> | undefined;
async function withShapes(o: BuildOptions): Promise<Record<string, string>> {
  shapes ??= quickShapes().then((s) => JSON.stringify(JSON.stringify(s)));
  return { CNI_QUICK_SHAPES: await shapes, CNI_TS_BUILD_LABEL: JSON.stringify(buildLabel()), ...o.define };
}

const withPlugins = (o: BuildOptions): Plugin[] => [bundledBuiltins, netlinkEndianness, netlinkEsm, debarrel, ...(o.plugins ?? [])];

function assertAscii(entry: string, file: { path: string; text: string }): void {
  if (!/^\p{ASCII}*$/u.test(file.text)) throw new Error(`bundle of ${entry} (${file.path}) is not ASCII`);
}

/** One entry bundled with bundleOptions; `plugins` come after bundledBuiltins. */
export async function bundle(entry: string, o: BuildOptions = {}): Promise<string> {
  const res = await build({ ...bundleOptions, entryPoints: [entry], ...o, define: await withShapes(o), plugins: withPlugins(o) });
  const out = res.outputFiles?.[0];
  if (!out) throw new Error(`esbuild produced no output for ${entry}`);
  assertAscii(entry, out);
  return out.text;
}

/**
 * One entry bundled with bundleOptions as ES modules split at every dynamic import: the entry's
 * file and one file per chunk, named by their paths relative to `outdir` (nothing is written).
 */
export async function bundleSplit(entry: string, outdir: string, o: BuildOptions = {}): Promise<{ path: string; text: string }[]> {
  const res = await build({
    ...bundleOptions,
    format: 'esm',
    splitting: true,
    outdir,
    outExtension: { '.js': '.mjs' },
    entryPoints: [entry],
    ...o,
    define: await withShapes(o),
    plugins: withPlugins(o),
  });
  const files = (res.outputFiles ?? []).map((f) => ({ path: relative(outdir, f.path), text: f.text }));
  if (files.length === 0) throw new Error(`esbuild produced no output for ${entry}`);
  for (const f of files) assertAscii(entry, f);
  return files;
}
