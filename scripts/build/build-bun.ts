// Builds the Bun form (`npm run build:bun`): dist/bun/cni-ts, one self-contained executable (Bun's
// runtime, every program compiled to bytecode, our addon as data), and dist/bun/bin/<program>,
// a hard link to it per program.
//
//   1. esbuild bundles runtime/bun-main.ts (the multicall entry) with the same options as the
//      other forms, natives routed to runtime/bun-natives.ts (base64 in the bundle, loaded
//      through the native store), but as ES modules split at every dynamic import: the entry,
//      one file per program and verb, and chunks of the code they share;
//   2. `bun build --compile --splitting --bytecode` turns those modules into the executable,
//      each module with its own bytecode, loaded only when a program imports it. One CommonJS
//      bundle made every start load and evaluate every program's top level: ~10 ms more per
//      process, measured. Every start-up autoload is off: a plugin runs as root in whatever
//      directory the runtime starts it in, and must not read a .env or bunfig.toml found there;
//   3. the executable is run once per program and verb with BUN_BYTECODE_ORDER_OUT, which
//      records the functions a start runs, in order; it is compiled again with
//      `--bytecode-order`, so those functions lie together in the file and a start faults in
//      fewer pages: 1–3 ms less per plugin process (measured, docs/architecture.md). The runs
//      change nothing on this host: each verb is refused by the dispatcher's own-netns check
//      (code 8) before any handler runs, and a run that is not refused fails the build;
//   4. each plugin's VERSION answer is recorded from that binary, and runtime/bun-starter.c is
//      compiled with them: a small static executable that answers VERSION itself and runs every
//      other call as the `cni-ts` beside it, with the JavaScriptCore settings a compiled Bun
//      program takes only from its environment (docs/packaging.md, The Bun form);
//   5. both are put in place (the binary as a copy, see placeByCopy): dist/bun/cni-ts and
//      dist/bun/starter; dist/bun/bin holds cni-ts (a hard link of the binary, which the starter
//      looks for beside itself) and every program's name as a hard link of the starter, the
//      layout `cni-ts install` makes in a plugin directory (tools/install/source.ts).
//
// Bun itself comes from npm (devDependency `bun`, pinned; scripts/build/bun-path.ts finds it).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, copyFileSync, linkSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildLabel, buildOut, bundleSplit, embedNatives, nativeBlobs, root } from './bundle.ts';
import { findBun } from './bun-path.ts';
import { BINARY_PROGRAM, PLUGIN_NAMES, PROGRAM_NAMES } from '../../plugins/registry.ts';
import { compileStarter } from '../../runtime/starter-build.ts';
import { recordBuild, sourceDigest } from './source-stamp.ts';

const out = buildOut();
const outDir = join(out.dir, 'bun');
// Intermediate files (the modules), kept for inspection.
const work = out.isDist ? join(root, '.cache', 'bun-build') : join(out.dir, '.bun-build');
const binary = join(outDir, 'cni-ts');
const starter = join(outDir, 'starter');

// Bun's build reads nothing from the environment we do not mean it to (BUN_* settings).
const CLEAN_ENV = { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin', HOME: work };

function run(cmd: string, args: readonly string[]): void {
  const r = spawnSync(cmd, args, { cwd: work, encoding: 'utf8', env: CLEAN_ENV });
  if (r.error) throw new Error(`${cmd}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
}

function compile(bun: string, modules: string, outfile: string, order: readonly string[]): void {
  run(bun, [
    'build',
    '--compile',
    '--splitting',
    '--bytecode',
    ...(order.length > 0 ? [`--bytecode-order=${order.join(',')}`] : []),
    '--format=esm',
    '--target=bun',
    '--no-compile-autoload-dotenv',
    '--no-compile-autoload-bunfig',
    '--no-compile-autoload-tsconfig',
    '--no-compile-autoload-package-json',
    // A plugin runs for tens of milliseconds: JIT tiers cost compile threads and executable
    // memory it never earns back. Tiering up 100× later kept ~1.8 MB (a sixth) off a bridge
    // ADD's peak memory and ~5 ms off its CPU (measured; docs/architecture.md). Hot loops still
    // tier up, so a long host-local scan is not left to the interpreter.
    '--compile-jit-policy=100',
    join(modules, 'bun-main.mjs'),
    '--outfile',
    outfile,
  ]);
}

// What a runtime sends most: a valid config with a prevResult (chained plugins read it).
const ORDER_CONFIG = {
  cniVersion: '1.1.0',
  name: 'cni-ts-build',
  prevResult: { cniVersion: '1.1.0', interfaces: [{ name: 'eth0', sandbox: '/x' }], ips: [{ address: '10.1.0.2/24', interface: 0 }] },
};

/** Runs `binary` as `program` (a hard link of that name in `dir`, its working directory). */
function runAs(binary: string, dir: string, program: string, call: { input: string; env: Record<string, string> }): SpawnSyncReturns<string> {
  const link = join(dir, program);
  rmSync(link, { force: true });
  linkSync(binary, link);
  return spawnSync(link, [], { cwd: dir, encoding: 'utf8', input: call.input, env: { PATH: CLEAN_ENV.PATH, ...call.env } });
}

/**
 * The order files of one run per program: VERSION, then ADD, CHECK and DEL of every plugin with
 * CNI_NETNS set to this process's own netns, which the dispatcher refuses (code 8) before the
 * handler runs. Most important first: what every start runs.
 */
function recordOrder(binary: string): string[] {
  const dir = join(work, 'order');
  mkdirSync(dir, { recursive: true });
  const runs = [
    ...PLUGIN_NAMES.map((p) => ({ p, verb: 'VERSION' })),
    ...(['ADD', 'DEL', 'CHECK'] as const).flatMap((verb) => PLUGIN_NAMES.map((p) => ({ p, verb }))),
  ];
  return runs.map(({ p, verb }) => {
    const out = join(dir, `${p}-${verb}.order`);
    const r = runAs(binary, dir, p, {
      input: verb === 'VERSION' ? '' : JSON.stringify({ ...ORDER_CONFIG, type: p }),
      env: {
        BUN_BYTECODE_ORDER_OUT: out,
        CNI_COMMAND: verb,
        CNI_CONTAINERID: 'cni-ts-build',
        CNI_NETNS: '/proc/self/ns/net',
        CNI_IFNAME: 'eth0',
        CNI_PATH: dir,
      },
    });
    const refused = verb === 'VERSION' ? r.status === 0 : r.status === 1 && /"code": 8,/.test(r.stdout);
    if (r.error || !refused || !statSync(out, { throwIfNoEntry: false })) {
      throw new Error(`recording the start of ${p} ${verb} failed (exit ${r.status}): ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
    }
    return out;
  });
}

/** Each plugin's VERSION answer (stdout, byte for byte), from the binary itself. */
function recordVersions(binary: string): { program: string; answer: string }[] {
  const dir = join(work, 'versions');
  mkdirSync(dir, { recursive: true });
  return PLUGIN_NAMES.map((program) => {
    const r = runAs(binary, dir, program, { input: '', env: { CNI_COMMAND: 'VERSION' } });
    // One line of printable ASCII: it goes into a C string literal as it is, but for " and \\.
    if (
      r.error ||
      r.status !== 0 ||
      !/^\{[\x20-\x7e]*\}\n$/.test(r.stdout) ||
      !Array.isArray((JSON.parse(r.stdout) as { supportedVersions?: unknown }).supportedVersions)
    ) {
      throw new Error(`recording the VERSION answer of ${program} failed (exit ${r.status}): ${r.error?.message ?? ''}${r.stdout}${r.stderr}`);
    }
    return { program, answer: r.stdout };
  });
}

/**
 * Puts the binary in place as a copy, the way `cni-ts install` installs it, not by renaming the
 * file Bun's compiler wrote. The kernel keeps a file written in large writes in its page cache as
 * large folios, and every start maps the binary's pages from there: in small folios (how Bun writes
 * the file, and how page faults fill the cache after an eviction) a loopback ADD took ~3.5 ms
 * more, measured (docs/packaging.md, The Bun form). So the binary the tests and the benchmark
 * run is in the state an install leaves it in.
 */
function placeByCopy(from: string, to: string): void {
  const tmpCopy = `${to}.tmp`;
  copyFileSync(from, tmpCopy); // with the mode of `from`, whatever the umask
  renameSync(tmpCopy, to);
  rmSync(from);
}

async function main(): Promise<void> {
  const bun = findBun(root);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });

  const natives = Object.fromEntries(nativeBlobs().map((n) => [n.name, { sha: n.sha, size: n.bytes.length, base64: n.bytes.toString('base64') }]));
  const modules = join(work, 'esm');
  const files = await bundleSplit(join(root, 'runtime', 'bun-main.ts'), modules, {
    plugins: [embedNatives(`export { nativeModule } from ${JSON.stringify(join(root, 'runtime', 'bun-natives.ts'))};`)],
    define: { CNI_BUN_NATIVES: JSON.stringify(natives) },
  });
  mkdirSync(modules, { recursive: true });
  for (const f of files) writeFileSync(join(modules, f.path), f.text);

  const first = join(work, 'cni-ts.unordered');
  compile(bun, modules, first, []);
  const tmp = join(work, 'cni-ts');
  compile(bun, modules, tmp, recordOrder(first));
  rmSync(first);
  chmodSync(tmp, 0o755);
  const tmpStarter = join(work, 'starter');
  // A labelled build's starter carries the label too, so every file of it differs from another build's.
  const label = buildLabel();
  compileStarter(recordVersions(tmp), join(work, 'starter-src'), tmpStarter, label === '' ? [] : [`CNI_TS_BUILD_LABEL="${label}"`]);
  mkdirSync(outDir, { recursive: true });
  placeByCopy(tmp, binary);
  renameSync(tmpStarter, starter);

  // Each link replaced by a rename, like the binary: tests or a runtime using dist/bun/bin
  // while it is rebuilt see the old program or the new one, never none.
  const binDir = join(outDir, 'bin');
  mkdirSync(binDir, { recursive: true });
  // The binary under its own name (the program cni-ts: the installer), the starter under every other.
  const starterNames = PROGRAM_NAMES.filter((n) => n !== BINARY_PROGRAM);
  const links: [string, string][] = [[BINARY_PROGRAM, binary], ...starterNames.map((n): [string, string] => [n, starter])];
  for (const name of readdirSync(binDir)) if (!links.some(([l]) => l === name)) rmSync(join(binDir, name), { force: true });
  for (const [name, target] of links) {
    const tmpLink = join(binDir, `.${name}.tmp`);
    rmSync(tmpLink, { force: true });
    linkSync(target, tmpLink);
    renameSync(tmpLink, join(binDir, name));
  }
  const mb = (statSync(binary).size / 1e6).toFixed(1);
  const kb = (statSync(starter).size / 1e3).toFixed(0);
  console.log(`built ${binary} (${mb} MB), ${starter} (${kb} KB) and ${starterNames.length} links to it in ${binDir}: ${starterNames.join(', ')}`);
}

// Taken before the build reads a file, so an edit made during the build makes the form stale.
const sources = sourceDigest();
await main();
if (out.isDist) recordBuild('bun', sources);
