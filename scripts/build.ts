// Builds one single-file executable per plugin: dist/bin/<plugin>, and the same for the
// runtime-side CLI tools/cni-run.ts: dist/bin/cni-run.
// Each file is scripts/launcher.cjs with the esbuild bundle of plugins/<plugin>/main.ts
// and the native addons embedded, so copying that one file is the whole install.
import { build, type Plugin } from 'esbuild';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
// Second line of every executable: lets a plugin recognise a sibling of ours on CNI_PATH
// (and run it in-process) by reading a few bytes. lib/ipam reads the same marker.
const PLUGIN_MARKER = '// cni-ts plugin: ';
// Tools carry another marker, so nothing takes them for a plugin.
const TOOL_MARKER = '// cni-ts tool: ';

/** What one executable is built from. */
interface Target {
  readonly name: string;
  readonly entry: string;
  readonly marker: string;
}
const outDir = join(root, 'dist', 'bin');

const nativePaths: Record<string, string> = {
  cni_native: join(root, 'native', 'build', 'Release', 'cni_native.node'),
  netlink: join(root, 'node_modules', 'netlink', 'prebuilds', `linux-${process.arch}`, 'node.napi.node'),
};

function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

// In the bundle every native comes from the launcher (`__cniLoadNative`, a
// parameter of the function the bundle runs in), never from a path on disk.
const embedNatives: Plugin = {
  name: 'embed-natives',
  setup(b) {
    const nativesModule = join(root, 'lib', 'linux', 'natives');
    b.onResolve({ filter: /natives(\.ts)?$/ }, (args) =>
      resolve(args.resolveDir, args.path).replace(/\.ts$/, '') === nativesModule ? { path: 'natives', namespace: 'cni-natives' } : undefined,
    );
    b.onResolve({ filter: /^node-gyp-build$/ }, () => ({ path: 'node-gyp-build', namespace: 'cni-natives' }));
    b.onLoad({ filter: /.*/, namespace: 'cni-natives' }, (args) => ({
      loader: 'js',
      contents:
        args.path === 'node-gyp-build'
          ? // netlink loads its binding when its module is first required; deferring the
            // load to first use keeps VERSION (and any verb that never opens a socket) free of it.
            `module.exports = () => new Proxy({}, { get: (_, key) => __cniLoadNative('netlink')[key] });`
          : `export function nativeModule(name) { return __cniLoadNative(name); }`,
    }));
  },
};

async function bundle({ name, entry }: Target): Promise<string> {
  const res = await build({
    entryPoints: [entry],
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
    plugins: [embedNatives],
    logLevel: 'warning',
  });
  const out = res.outputFiles[0];
  if (!out) throw new Error(`esbuild produced no output for ${name}`);
  return out.text;
}

interface Blob {
  readonly name: string;
  readonly bytes: Buffer;
}

// Every executable carries every native: they are small (~150 KiB), and a
// plugin that could fail for a missing native on some code path is worse.
function nativeBlobs(): Blob[] {
  return Object.entries(nativePaths).map(([name, file]) => {
    if (!existsSync(file)) throw new Error(`native module ${name} not built: ${file} (run npm ci)`);
    return { name, bytes: readFileSync(file) };
  });
}

function fill(template: string, slot: string, value: string): string {
  const marker = `/*@@${slot}@@*/`;
  const at = template.indexOf(marker);
  if (at < 0) throw new Error(`launcher has no slot ${slot}`);
  // The slot is followed by a placeholder literal ('' or {}) that the value replaces.
  const end = template.indexOf(';', at);
  return template.slice(0, at) + value + template.slice(end);
}

/**
 * The executable: shebang, launcher, then one comment holding every blob in base64.
 * The launcher finds each blob by byte offset, so the offsets are computed for a
 * header whose size no longer changes: offsets are padded to a fixed width.
 */
function assemble({ name, marker }: Target, launcher: string, bundle: string, natives: Blob[]): string {
  const blobs = [{ name: 'bundle', bytes: Buffer.from(bundle, 'latin1') }, ...natives].map((b) => ({ ...b, b64: b.bytes.toString('base64') }));
  const pad = (n: number) => String(n).padStart(10, ' ');
  const header = (offsets: number[]) => {
    const at = (i: number) => `{ offset: ${pad(offsets[i] ?? 0)}, length: ${pad(blobs[i]?.b64.length ?? 0)} }`;
    const nativesJs = natives
      .map((n, i) => `${JSON.stringify(n.name)}: { sha: ${JSON.stringify(sha256(n.bytes).slice(0, 16))}, size: ${n.bytes.length}, ...${at(i + 1)} }`)
      .join(', ');
    let text = launcher;
    text = fill(text, 'PLUGIN', JSON.stringify(name));
    text = fill(text, 'BUNDLE_HASH', JSON.stringify(sha256(blobs.map((b) => b.b64).join('')).slice(0, 16)));
    text = fill(text, 'BUNDLE_AT', at(0));
    text = fill(text, 'NATIVES', `{ ${nativesJs} }`);
    return `#!/usr/bin/env node\n${marker}${name}\n${text}\n/*@@PAYLOAD\n`;
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

async function buildTarget(target: Target, launcher: string, natives: Blob[]): Promise<void> {
  const code = await bundle(target);
  if (!/^\p{ASCII}*$/u.test(code)) throw new Error(`bundle of ${target.name} is not ASCII`);
  const text = assemble(target, launcher, code, natives);
  const file = join(outDir, target.name);
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  console.log(`built ${file} (${(text.length / 1024).toFixed(0)} KiB)`);
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  // An extensionless file next to a package.json with "type":"module" would be read as ESM.
  writeFileSync(join(root, 'dist', 'package.json'), '{"type":"commonjs"}\n');
  const launcher = readFileSync(join(root, 'scripts', 'launcher.cjs'), 'utf8');
  const plugins: Target[] = readdirSync(join(root, 'plugins'))
    .filter((p) => existsSync(join(root, 'plugins', p, 'main.ts')))
    .map((p) => ({ name: p, entry: join(root, 'plugins', p, 'main.ts'), marker: PLUGIN_MARKER }));
  const tools: Target[] = [{ name: 'cni-run', entry: join(root, 'tools', 'cni-run.ts'), marker: TOOL_MARKER }];
  const natives = nativeBlobs();
  for (const t of [...plugins, ...tools]) await buildTarget(t, launcher, natives);
}

await main();
