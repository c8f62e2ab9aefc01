// The native store with the real natives, each case in a child process of its own (a dlopened
// library stays in its process): what gets loaded, what is left in the directory.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { bundledBuiltins } from '../scripts/build/bundle.ts';
import { TEMP_MAX_AGE_MS } from './native-store-sweep.ts';

const root = join(import.meta.dirname, '..');
const FILES: Record<string, string> = {
  cni_native: join(root, 'native', 'build', 'Release', 'cni_native.node'),
  netlink: join(root, 'node_modules', 'netlink', 'prebuilds', `linux-${process.arch}`, 'node.napi.node'),
};
const SHA = Object.fromEntries(Object.entries(FILES).map(([n, f]) => [n, createHash('sha256').update(readFileSync(f)).digest('hex')]));
const NODE = process.version;
const BUILD = '0123456789abcdef';

// The child: a store over the real natives; loads `load` in order, then writes `cache` if set,
// and prints the export names of each native. `tempOfOurPid` first makes the temp name an
// older store would have used (`<file>.<pid>.tmp`), as a writer with our pid in another PID
// namespace would have it.
const CHILD = `
const fs = require('node:fs');
const { createNativeStore } = require(process.env.T_STORE);
const files = JSON.parse(process.env.T_FILES), sha = JSON.parse(process.env.T_SHA);
const natives = Object.fromEntries(Object.keys(files).map((n) => [n, { sha: sha[n], size: fs.statSync(files[n]).size }]));
const dir = process.env.CNI_TS_NATIVE_DIR;
if (process.env.T_TEMP_OF_OUR_PID) fs.writeFileSync(dir + '/cni_native-' + sha.cni_native.slice(0, 16) + '.node.' + process.pid + '.tmp', 'being written', { mode: 0o600 });
const store = createNativeStore({ natives, payload: (n) => fs.readFileSync(files[n]), env: process.env, build: process.env.T_BUILD });
const out = {};
for (const n of JSON.parse(process.env.T_LOAD)) out[n] = Object.keys(store.loadNative(n));
if (process.env.T_CACHE) store.writeCache(process.env.T_CACHE, Buffer.from('cache'));
console.log(JSON.stringify(out));
`;

// The store as the executables carry it: one CommonJS bundle, built-ins through the bundle's own
// require (T_STORE: another source of it).
const bundleDir = mkdtempSync(join(tmpdir(), 'cnits-store-'));
t.teardown(() => rmSync(bundleDir, { recursive: true, force: true }));
const STORE = join(bundleDir, 'native-store.cjs');
await build({
  entryPoints: [process.env['T_STORE'] ?? join(import.meta.dirname, 'native-store.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  outfile: STORE,
  logLevel: 'warning',
  plugins: [bundledBuiltins],
});

interface ChildRun {
  readonly code: number | null;
  readonly exports: Record<string, string[]> | undefined;
  readonly stderr: string;
}

function runStore(dir: string, o: { load: string[]; build?: string; cache?: string; tempOfOurPid?: boolean }): ChildRun {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    CNI_TS_NATIVE_DIR: dir,
    T_STORE: STORE,
    T_FILES: JSON.stringify(FILES),
    T_SHA: JSON.stringify(SHA),
    T_LOAD: JSON.stringify(o.load),
    T_BUILD: o.build ?? BUILD,
    ...(o.cache !== undefined && { T_CACHE: o.cache }),
    ...(o.tempOfOurPid && { T_TEMP_OF_OUR_PID: '1' }),
  };
  const r = spawnSync(process.execPath, ['-e', CHILD], { env, encoding: 'utf8', cwd: root });
  let exports: Record<string, string[]> | undefined;
  try {
    exports = JSON.parse(r.stdout) as Record<string, string[]>;
  } catch {
    exports = undefined;
  }
  return { code: r.status, exports, stderr: r.stderr };
}

function storeDir(t: Test): string {
  const dir = join(t.testdir(), 'native');
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

const nativeFile = (n: string) => `${n}-${SHA[n]?.slice(0, 16)}.node`;
const BOTH = ['cni_native', 'netlink'];
const EXPECTED = {
  cni_native: [
    'withNetns',
    'flock',
    'isNetnsFd',
    'nlOpen',
    'nlSend',
    'nlReceive',
    'nlClose',
    'spawnStart',
    'spawnWait',
    'tunCreate',
    'packetOpen',
    'packetSend',
    'packetReceive',
    'LOCK_SH',
    'LOCK_EX',
    'LOCK_UN',
    'LOCK_NB',
  ],
  netlink: ['NativeNetlink'],
};

t.test('no usable directory: each native loads as its own library from an unnamed file', async (t) => {
  // A path under a regular file can never be made: the store falls back to unnamed files.
  const r = runStore('/dev/null/native', { load: BOTH });
  t.same(r.exports, EXPECTED, r.stderr);
});

t.test('natives are stored, and each is its own library', async (t) => {
  const dir = storeDir(t);
  const r = runStore(dir, { load: BOTH });
  t.same(r.exports, EXPECTED, r.stderr);
  t.same(readdirSync(dir).sort(), BOTH.map(nativeFile));
});

t.test('a directory reached through a symlink: natives are stored in its target', async (t) => {
  const dir = storeDir(t);
  const link = join(dirname(dir), 'link');
  symlinkSync('native', link);
  const r = runStore(link, { load: BOTH });
  t.same(r.exports, EXPECTED, r.stderr);
  t.same(readdirSync(dir).sort(), BOTH.map(nativeFile));
  t.equal(r.stderr, '', 'no refusal said');
});

t.test('a directory others may write is refused, said on stderr, and the natives load from unnamed files', async (t) => {
  const dir = storeDir(t);
  chmodSync(dir, 0o777);
  const r = runStore(dir, { load: BOTH, cache: `host-local-${BUILD}-ADD-${NODE}.jscache` });
  t.same(r.exports, EXPECTED, r.stderr);
  t.match(r.stderr, `refusing to load native code from ${dir}: ${dir} is writable by group or others; trying the next place`);
  t.same(readdirSync(dir), [], 'nothing written there, the cache neither');
});

t.test('a stored native of the right size but other bytes is replaced, not loaded', async (t) => {
  const dir = storeDir(t);
  const file = join(dir, nativeFile('cni_native'));
  writeFileSync(file, Buffer.alloc(statSync(FILES['cni_native'] ?? '').size, 0x41), { mode: 0o600 });
  const r = runStore(dir, { load: ['cni_native'] });
  t.same(r.exports, { cni_native: EXPECTED.cni_native }, r.stderr);
  t.ok(readFileSync(file).equals(readFileSync(FILES['cni_native'] ?? '')), 'the stored file holds the embedded bytes again');
});

t.test("another writer's temp file is left alone, even when its name holds our pid", async (t) => {
  const dir = storeDir(t);
  const r = runStore(dir, { load: ['cni_native'], tempOfOurPid: true });
  t.same(r.exports, { cni_native: EXPECTED.cni_native }, r.stderr);
  const temps = readdirSync(dir).filter((f) => f.endsWith('.tmp'));
  t.equal(temps.length, 1, `one temp file: ${temps.join(' ')}`);
  t.equal(readFileSync(join(dir, temps[0] ?? '')).toString(), 'being written', 'still the other writer’s');
});

// What other builds leave, and what the store must never touch: names it does not make.
function seed(dir: string): { stale: string[]; foreign: string[] } {
  const other = 'fedcba9876543210';
  const stale = [
    `cni_native-${other}.node`,
    `netlink-${other}.node`,
    `bandwidth-${other}.node`,
    `host-local-${other}-ADD-${NODE}.jscache`,
    `bridge-${BUILD}-DEL-v18.20.0.jscache`,
    `cni_native-${other}.node.1234.tmp`,
  ];
  const foreign = [
    'README',
    `cni_native-${other}.node.bak`,
    'cni_native.node',
    `x-${other}-ADD-${NODE}.jscache.orig`,
    'notes.tmp',
    `cni_native-${SHA['cni_native']?.slice(0, 16)}.node.fresh.tmp`,
  ];
  for (const f of [...stale, ...foreign]) writeFileSync(join(dir, f), 'x', { mode: 0o600 });
  // a killed writer's leftover: older than any write takes
  const old = (Date.now() - 2 * TEMP_MAX_AGE_MS) / 1000;
  utimesSync(join(dir, `cni_native-${other}.node.1234.tmp`), old, old);
  return { stale, foreign };
}

t.test('writing its files, a build removes the files of other builds and nothing else', async (t) => {
  const dir = storeDir(t);
  const { foreign } = seed(dir);
  const ownCache = `host-local-${BUILD}-DEL-${NODE}.jscache`;
  const sibling = `bridge-${BUILD}-ADD-${NODE}.jscache`;
  writeFileSync(join(dir, sibling), 'x', { mode: 0o600 });
  const r = runStore(dir, { load: BOTH, cache: ownCache });
  t.same(r.exports, EXPECTED, r.stderr);
  t.same(
    readdirSync(dir).sort(),
    [...BOTH.map(nativeFile), ownCache, sibling, ...foreign].sort(),
    'own natives, both caches of this build, and the foreign files',
  );
});

t.test('a start that writes nothing sweeps nothing', async (t) => {
  const dir = storeDir(t);
  t.equal(runStore(dir, { load: BOTH }).code, 0);
  const { stale } = seed(dir);
  const r = runStore(dir, { load: BOTH });
  t.same(r.exports, EXPECTED, r.stderr);
  for (const f of stale) t.ok(existsSync(join(dir, f)), `${f} is still there`);
});

t.test('five builds in turn leave the files of the last one only', async (t) => {
  const dir = storeDir(t);
  const builds = ['1111111111111111', '2222222222222222', '3333333333333333', '4444444444444444', '5555555555555555'];
  for (const b of builds) {
    for (const verb of ['ADD', 'DEL']) t.equal(runStore(dir, { load: BOTH, build: b, cache: `host-local-${b}-${verb}-${NODE}.jscache` }).code, 0);
  }
  const last = builds[4];
  t.same(readdirSync(dir).sort(), [...BOTH.map(nativeFile), `host-local-${last}-ADD-${NODE}.jscache`, `host-local-${last}-DEL-${NODE}.jscache`].sort());
});
