// Our executable (either form: a single-file bundle, or the Bun form's program, its starter
// with the binary beside it): copied alone into an empty directory it works, extracts its
// natives only into a safe directory, and reuses what it wrote. The bundle also keeps a V8
// code cache there, one per verb; the Bun binary keeps none (it carries its code as bytecode).
import t, { type Test } from 'tap';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeNetns } from '../helpers/netns.ts';
import { execPlugin, installOurs, OURS_FORM, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';

const conf = { cniVersion: '1.1.0', name: 'lo-net', type: 'loopback' };

function installAlone(t: Test): { bin: string; nativeDir: string } {
  const bin = tempDir(t, 'cnits-bin-');
  installOurs('loopback', bin);
  return { bin, nativeDir: join(tempDir(t, 'cnits-state-'), 'native') };
}

t.test('copied alone into an empty directory, ADD works and natives land in the state dir', { skip: needsRoot }, async (t) => {
  const { bin, nativeDir } = installAlone(t);
  const alone = OURS_FORM === 'bun' ? ['cni-ts', 'loopback'] : ['loopback'];
  t.same(readdirSync(bin).sort(), alone, `the directory holds ${alone.join(' and ')}`);
  const ns = await makeNetns(t, 'pkg');
  const env = { command: 'ADD' as const, containerId: 'c1', netns: ns.path, ifname: 'eth0', baseEnv: { PATH: '/usr/bin:/bin', CNI_TS_NATIVE_DIR: nativeDir } };
  const first = await execPlugin('loopback', env, conf, bin);
  t.equal(first.code, 0, first.stdout + first.stderr);
  t.equal(first.json?.interfaces?.[0]?.name, 'lo');

  const files = readdirSync(nativeDir).sort();
  const cache = OURS_FORM === 'bundle' ? [/^loopback-[0-9a-f]{16}-ADD-v[\d.]+\.jscache$/] : [];
  // One native: our addon (netlink's binding is no longer carried, its socket being ours).
  t.match(files, [/^cni_native-[0-9a-f]{16}\.node$/, ...cache]);
  t.equal(files.length, 1 + cache.length, `nothing else: ${files.join(' ')}`);
  t.equal(statSync(nativeDir).mode & 0o777, 0o700, 'state dir is private');
  for (const f of files) t.equal(statSync(join(nativeDir, f)).mode & 0o777, 0o600, `${f} is 0600`);

  const before = files.map((f) => statSync(join(nativeDir, f)).ino);
  // ADD again (loopback's is idempotent): the same verb, so the same files, none rewritten
  const second = await execPlugin('loopback', env, conf, bin);
  t.equal(second.code, 0, second.stdout);
  t.same(
    readdirSync(nativeDir)
      .sort()
      .map((f) => statSync(join(nativeDir, f)).ino),
    before,
    'second run reuses the files',
  );
});

// Refused, it passes to the next place: with CNI_TS_NATIVE_DIR the list holds only it, so the
// addon loads from an unnamed file, and the refusal is said on stderr.
t.test('a state dir writable by others is refused, said on stderr, and nothing is written there', { skip: needsRoot }, async (t) => {
  const { bin, nativeDir } = installAlone(t);
  mkdirSync(nativeDir);
  chmodSync(nativeDir, 0o777);
  const ns = await makeNetns(t, 'pkg');
  const r = await execPlugin(
    'loopback',
    { command: 'ADD', containerId: 'c1', netns: ns.path, ifname: 'eth0', baseEnv: { PATH: '/usr/bin:/bin', CNI_TS_NATIVE_DIR: nativeDir } },
    conf,
    bin,
  );
  t.equal(r.code, 0, `ADD works from an unnamed file (${r.stdout} ${r.stderr})`);
  t.match(r.stderr, new RegExp(`refusing to load native code from ${nativeDir}: ${nativeDir} is writable by group or others; trying the next place`));
  t.same(readdirSync(nativeDir), [], 'no native was extracted');
});

t.test('a damaged native is replaced, not loaded', { skip: needsRoot }, async (t) => {
  const { bin, nativeDir } = installAlone(t);
  const ns = await makeNetns(t, 'pkg');
  const env = { command: 'ADD' as const, containerId: 'c1', netns: ns.path, ifname: 'eth0', baseEnv: { PATH: '/usr/bin:/bin', CNI_TS_NATIVE_DIR: nativeDir } };
  t.equal((await execPlugin('loopback', env, conf, bin)).code, 0);
  const native = readdirSync(nativeDir).find((f) => f.startsWith('cni_native-'));
  if (native === undefined) throw new Error('no native extracted');
  const size = statSync(join(nativeDir, native)).size;
  truncateSync(join(nativeDir, native), 100);
  const r = await execPlugin('loopback', { ...env, command: 'DEL' }, conf, bin);
  t.equal(r.code, 0, r.stdout + r.stderr);
  t.equal(statSync(join(nativeDir, native)).size, size, 'the native was written again');
});

// The bundle's own mechanism (the Bun binary has no code cache to damage).
if (OURS_FORM === 'bundle') {
  t.test('a garbage code cache is ignored, and each verb has its own', { skip: needsRoot }, async (t) => {
    const { bin, nativeDir } = installAlone(t);
    const ns = await makeNetns(t, 'pkg');
    const env = {
      command: 'ADD' as const,
      containerId: 'c1',
      netns: ns.path,
      ifname: 'eth0',
      baseEnv: { PATH: '/usr/bin:/bin', CNI_TS_NATIVE_DIR: nativeDir },
    };
    t.equal((await execPlugin('loopback', env, conf, bin)).code, 0);
    const cache = readdirSync(nativeDir).find((f) => /-ADD-v[\d.]+\.jscache$/.test(f));
    if (cache === undefined) throw new Error('no code cache written for ADD');
    writeFileSync(join(nativeDir, cache), 'not a code cache', { mode: 0o600 });
    // loopback ADD again (it is idempotent): it reads the damaged cache
    const again = await execPlugin('loopback', env, conf, bin);
    t.equal(again.code, 0, again.stdout + again.stderr);
    t.not(statSync(join(nativeDir, cache)).size, 'not a code cache'.length, 'the cache was rebuilt');
    const del = await execPlugin('loopback', { ...env, command: 'DEL' }, conf, bin);
    t.equal(del.code, 0, del.stdout + del.stderr);
    t.ok(
      readdirSync(nativeDir).some((f) => /^loopback-[0-9a-f]{16}-DEL-v[\d.]+\.jscache$/.test(f)),
      "DEL wrote its own cache beside ADD's",
    );
  });
}

// A new build is a new BUILD_ID in every executable (scripts/build/build.ts): the same bundle under
// another id stands for it here, as the native store sees only the id.
function asBuild(bin: string, id: string): void {
  const file = join(bin, 'loopback');
  const text = readFileSync(file, 'latin1');
  const patched = text.replace(/^const BUILD_ID = "[0-9a-f]{16}";$/m, `const BUILD_ID = "${id}";`);
  if (patched === text) throw new Error(`no BUILD_ID in ${file}`);
  writeFileSync(file, patched, 'latin1');
}

if (OURS_FORM === 'bundle') {
  t.test('five builds run in turn: the store keeps the files of the last one only', { skip: needsRoot }, async (t) => {
    const { bin, nativeDir } = installAlone(t);
    const ns = await makeNetns(t, 'pkg');
    const env = {
      command: 'ADD' as const,
      containerId: 'c1',
      netns: ns.path,
      ifname: 'eth0',
      baseEnv: { PATH: '/usr/bin:/bin', CNI_TS_NATIVE_DIR: nativeDir },
    };
    const builds = ['1111111111111111', '2222222222222222', '3333333333333333', '4444444444444444', '5555555555555555'];
    for (const id of builds) {
      asBuild(bin, id);
      for (const command of ['ADD', 'DEL'] as const) {
        const r = await execPlugin('loopback', { ...env, command }, conf, bin);
        t.equal(r.code, 0, `build ${id} ${command}: ${r.stdout}${r.stderr}`);
      }
    }
    const files = readdirSync(nativeDir).sort();
    t.match(files, [/^cni_native-[0-9a-f]{16}\.node$/, /^loopback-5{16}-ADD-v[\d.]+\.jscache$/, /^loopback-5{16}-DEL-v[\d.]+\.jscache$/]);
    t.equal(files.length, 3, `nothing else: ${files.join(' ')}`);

    // The old build still runs (an upgrade in progress): it puts back what it needs.
    asBuild(bin, builds[0] ?? '');
    const old = await execPlugin('loopback', env, conf, bin);
    t.equal(old.code, 0, old.stdout + old.stderr);
    t.ok(
      readdirSync(nativeDir).some((f) => f.startsWith(`loopback-${builds[0]}-ADD-`)),
      "the old build's cache is back",
    );
  });
}

t.test('first use by many plugins at once: every one loads its natives', { skip: needsRoot }, async (t) => {
  const { bin, nativeDir } = installAlone(t);
  const nss = await Promise.all(Array.from({ length: 8 }, () => makeNetns(t, 'pkg')));
  const runs = await Promise.all(
    nss.map((ns, i) =>
      execPlugin(
        'loopback',
        { command: 'ADD', containerId: `c${i}`, netns: ns.path, ifname: 'eth0', baseEnv: { PATH: '/usr/bin:/bin', CNI_TS_NATIVE_DIR: nativeDir } },
        conf,
        bin,
      ),
    ),
  );
  runs.forEach((r, i) => t.equal(r.code, 0, `plugin ${i}: ${r.stdout}${r.stderr}`));
  t.same(
    readdirSync(nativeDir).filter((f) => f.endsWith('.tmp')),
    [],
    'no temp file is left',
  );
});

// A runtime passes a plugin its own environment: a stray variable in a kubelet or containerd
// unit must not change what runs as root. The bundles start Node through sh, which drops these
// first (scripts/build/build.ts); the Bun form's starter drops them and more (e2e/packaging/bun.test.ts).
t.test("Node's settings in the caller's environment run nothing in the plugin", { skip: needsRoot }, async (t) => {
  const { bin, nativeDir } = installAlone(t);
  const work = tempDir(t, 'cnits-env-');
  const marker = join(work, 'probe-ran');
  const probe = join(work, 'probe.cjs');
  writeFileSync(probe, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
  // An OpenSSL configuration naming a provider: Node loads its shared object at start-up.
  const openssl = join(work, 'openssl.cnf');
  writeFileSync(openssl, `nodejs_conf = n\n[n]\nproviders = p\n[p]\nx = x_sect\n[x_sect]\nmodule = ${join(work, 'none.so')}\nactivate = 1\n`);
  const ns = await makeNetns(t, 'pkg');
  for (const [what, extra] of [
    ['NODE_OPTIONS=--require', { NODE_OPTIONS: `--require ${probe}` }],
    ['NODE_OPTIONS=--import', { NODE_OPTIONS: `--import ${probe}` }],
    ['OPENSSL_CONF', { OPENSSL_CONF: openssl }],
  ] as const) {
    const env = {
      command: 'ADD' as const,
      containerId: 'c1',
      netns: ns.path,
      ifname: 'lo',
      baseEnv: { PATH: '/usr/bin:/bin', CNI_TS_NATIVE_DIR: nativeDir, ...extra },
    };
    const r = await execPlugin('loopback', env, conf, bin);
    t.equal(r.code, 0, `${what}: the ADD works ${r.stdout}${r.stderr}`);
    t.match(r.json, { interfaces: [{ name: 'lo' }] }, `${what}: the plugin answered`);
    t.notOk(existsSync(marker), `${what}: the probe did not run`);
    rmSync(marker, { force: true });
  }
});
