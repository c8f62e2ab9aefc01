// Builds one single-file executable per program of plugins/registry.ts: dist/bin/<plugin>, and
// the same for the runtime-side CLI tools/cni-run.ts: dist/bin/cni-run.
// Each file is runtime/launcher.cjs with the esbuild bundle of plugins/<plugin>/main.ts
// and the native addons embedded, so copying that one file is the whole install.
import type { Plugin } from 'esbuild';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_MARKER } from '../../lib/ipam/our-plugin.ts';
import { entryModule, PROGRAM_NAMES, programEntry } from '../../plugins/registry.ts';
import { buildLabel, buildOut, bundle, embedNatives, type NativeBlob, nativeBlobs, root, sha256 } from './bundle.ts';
import { recordBuild, sourceDigest } from './source-stamp.ts';

// How an executable starts Node: through sh, which first removes what Node would act on before
// any line of ours runs. A runtime passes a plugin its own environment, so a stray variable in a
// kubelet or containerd unit would change what runs as root: NODE_OPTIONS (--require, --import:
// a file run inside the plugin), OPENSSL_CONF (Node loads the OpenSSL providers it names, shared
// objects, at every start), NODE_REDIRECT_WARNINGS and NODE_V8_COVERAGE (files written as root),
// NODE_EXTRA_CA_CERTS and NODE_ICU_DATA (files read at every start: ~50 ms for the first, and no
// plugin makes a TLS connection), NODE_CHANNEL_FD (an IPC channel on an inherited fd). The
// dynamic loader's (LD_PRELOAD...) act on sh and node before this line: README, "What a plugin
// inherits". The line is shell and JavaScript at once: for sh, ':' is a no-op given `//`; for
// Node, which skips the #! line, a string statement and a comment. It costs what
// `#!/usr/bin/env node` did, one exec before node's (sh's for env's). `env -S -u NAME node`
// would do it too, but busybox's env (Alpine) has no -S, and every call would fail.
export const NODE_SETTINGS_DROPPED = [
  'NODE_OPTIONS',
  'OPENSSL_CONF',
  'NODE_REDIRECT_WARNINGS',
  'NODE_V8_COVERAGE',
  'NODE_EXTRA_CA_CERTS',
  'NODE_ICU_DATA',
  'NODE_CHANNEL_FD',
] as const;
//
// Then sh opens the file once more, on fd 9, and Node runs that open file (/proc/self/fd/9), not
// the path: between the kernel's exec of the path and Node's reads, an install may rename another
// file over it (an upgrade, or a switch to the Bun form), and a file read by path again would be
// that other one: the Bun starter's ELF bytes, or another build's payload at this build's offsets
// (docs/install.md, Upgrades under load). What fd 9 holds is checked to be a bundle still (the
// first line); if it is not, the path is exec'd again, and the kernel runs whatever lies there
// now. --preserve-symlinks-main keeps Node from resolving /proc/self/fd/9 to the path (or its
// "(deleted)" name); the path itself goes to the launcher as argv[2], which puts it back in argv[1].
const START = `#!/bin/sh\n':' //; unset ${NODE_SETTINGS_DROPPED.join(' ')}; exec 9<"$0"; read -r l <&9; [ "$l" = '#!/bin/sh' ] || exec "$0" "$@"; exec node --preserve-symlinks-main /proc/self/fd/9 "$0" "$@"\n`;

// Third line of every executable, after START's two: PLUGIN_MARKER lets a plugin recognise a
// sibling of ours on CNI_PATH (and run it in-process) by reading a few bytes (lib/ipam/our-plugin.ts).
// Tools carry another marker, so nothing takes them for a plugin.
const TOOL_MARKER = '// cni-ts tool: ';

/** What one executable is built from. */
interface Target {
  readonly name: string;
  readonly entry: string;
  readonly marker: string;
}
/** What every executable of one build shares. */
interface Suite {
  readonly launcher: string;
  readonly buildId: string;
  readonly natives: NativeBlob[];
}
const out = buildOut();
const outDir = join(out.dir, 'bin');

// In the bundle every native comes from the launcher (`__cniLoadNative`, a parameter of the
// function the bundle runs in), never from a path on disk.
const launcherNatives = embedNatives('export function nativeModule(name) { return __cniLoadNative(name); }');

/**
 * runtime/native-store.ts as one expression for the launcher's NATIVE_STORE slot: its
 * CommonJS bundle run in a function of its own, with the launcher's `require`.
 */
async function nativeStoreExpression(): Promise<string> {
  const code = await bundle(join(root, 'runtime', 'native-store.ts'));
  return `(() => { const module = { exports: {} }; const exports = module.exports;\n${code}\nreturn module.exports; })()`;
}

/**
 * An executable carries one program. The registry imports every plugin's entry module lazily
 * (for the multicall binary); in a bundle that imports the registry (cni-run, for the plugins'
 * config loaders) those imports resolve to a module that refuses, so no other program's code is
 * carried.
 */
const registryFile = join(root, 'plugins', 'registry.ts');
const oneProgram: Plugin = {
  name: 'one-program',
  setup(b) {
    b.onResolve({ filter: /\/main\.ts$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer === registryFile ? { path: args.path, namespace: 'cni-other-program' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'cni-other-program' }, (args) => ({
      loader: 'js',
      contents: `throw new Error(${JSON.stringify(`${args.path} is not in this executable`)});`,
    }));
  },
};

function fill(template: string, slot: string, value: string): string {
  const marker = `/*@@${slot}@@*/`;
  const at = template.indexOf(marker);
  if (at < 0) throw new Error(`launcher has no slot ${slot}`);
  // The slot is followed by a placeholder literal ('' or {}) that the value replaces.
  const end = template.indexOf(';', at);
  return template.slice(0, at) + value + template.slice(end);
}

/**
 * The executable: START (sh, then node), the marker, the launcher, then one comment holding every blob in base64.
 * The launcher finds each blob by byte offset, so the offsets are computed for a
 * header whose size no longer changes: offsets are padded to a fixed width.
 */
function assemble({ name, marker }: Target, { launcher, buildId, natives }: Suite, code: string): string {
  const blobs = [{ name: 'bundle', bytes: Buffer.from(code, 'latin1') }, ...natives].map((b) => ({ ...b, b64: b.bytes.toString('base64') }));
  const pad = (n: number) => String(n).padStart(10, ' ');
  const header = (offsets: number[]) => {
    const at = (i: number) => `{ offset: ${pad(offsets[i] ?? 0)}, length: ${pad(blobs[i]?.b64.length ?? 0)} }`;
    const nativesJs = natives
      .map((n, i) => `${JSON.stringify(n.name)}: { sha: ${JSON.stringify(n.sha)}, size: ${n.bytes.length}, ...${at(i + 1)} }`)
      .join(', ');
    let text = launcher;
    text = fill(text, 'PLUGIN', JSON.stringify(name));
    text = fill(text, 'BUILD_ID', JSON.stringify(buildId));
    text = fill(text, 'BUNDLE_AT', at(0));
    text = fill(text, 'NATIVES', `{ ${nativesJs} }`);
    return `${START}${marker}${name}\n${text}\n/*@@PAYLOAD\n`;
  };
  const start = Buffer.byteLength(header([]));
  const offsets: number[] = [];
  let pos = start;
  for (const b of blobs) {
    offsets.push(pos);
    pos += b.b64.length + 1; // newline after each blob
  }
  const head = header(offsets);
  if (Buffer.byteLength(head) !== start) throw new Error('launcher header changed size while placing offsets');
  return `${head}${blobs.map((b) => `${b.b64}\n`).join('')}*/\n`;
}

/**
 * The suite build's id, in every executable: what the native store counts as one build (it
 * sweeps the code caches of other ids). Made of everything that goes into the executables, so
 * an unchanged tree rebuilt keeps its id and its caches.
 */
function buildIdOf(launcher: string, bundles: ReadonlyMap<Target, string>, natives: NativeBlob[]): string {
  const parts = [buildLabel(), launcher, ...[...bundles].flatMap(([t, code]) => [t.name, t.marker, code]), ...natives.flatMap((n) => [n.name, n.sha])];
  return sha256(parts.join('\0')).slice(0, 16);
}

function writeTarget(target: Target, suite: Suite, code: string): void {
  const text = assemble(target, suite, code);
  const file = join(outDir, target.name);
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  console.log(`built ${file} (${(text.length / 1024).toFixed(0)} KiB)`);
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  // An extensionless file next to a package.json with "type":"module" would be read as ESM.
  writeFileSync(join(out.dir, 'package.json'), '{"type":"commonjs"}\n');
  const launcher = fill(readFileSync(join(root, 'runtime', 'launcher.cjs'), 'utf8'), 'NATIVE_STORE', await nativeStoreExpression());
  const targets: Target[] = PROGRAM_NAMES.map((name) => ({
    name,
    entry: join(root, entryModule(name)),
    marker: programEntry(name).kind === 'tool' ? TOOL_MARKER : PLUGIN_MARKER,
  }));
  // A program no longer in the registry is not left behind to be installed.
  for (const f of readdirSync(outDir)) if (!targets.some((t) => t.name === f)) rmSync(join(outDir, f), { force: true });
  const natives = nativeBlobs();
  const bundles = new Map<Target, string>();
  for (const t of targets) bundles.set(t, await bundle(t.entry, { plugins: [launcherNatives, oneProgram] }));
  const buildId = buildIdOf(launcher, bundles, natives);
  for (const [t, code] of bundles) writeTarget(t, { launcher, buildId, natives }, code);
}

// Taken before the build reads a file, so an edit made during the build makes the form stale.
const sources = sourceDigest();
await main();
if (out.isDist) recordBuild('bundle', sources);
