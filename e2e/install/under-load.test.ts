// Upgrades and form switches by `cni-ts install` while a runtime keeps calling the plugins: two
// pods ADDed and DELeted in a loop (the Kubernetes chain through cnitool, from the directory being
// installed into) while the installer replaces every file. No call may fail, only the new build's
// files may remain, and after the loop's last DELs host-local holds no address.
// docs/install.md (Upgrades under load) explains what makes a script's upgrade atomic.
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { cnitoolMissing } from '../helpers/cnitool.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { BUN, BUNDLES, olderBuild } from './builds.ts';
import { afterCalls, cniTsInstall, contents, expectedFrom, k8sChain, MANIFEST, startLoad } from './helpers.ts';

const PODS = 2;
const totals = { calls: 0, failed: 0 };

/**
 * Installs `first` (by its own installer), starts the load, then runs each later install in
 * turn (each by the installer of the build it installs), with calls made between and after them.
 */
async function underLoad(t: Test, n: number, tag: string, steps: readonly string[]): Promise<void> {
  t.equal(cnitoolMissing, undefined, 'cnitool is built');
  if (cnitoolMissing !== undefined) return;
  const target = join(tempDir(t, 'cnits-inst-'), 'bin');
  const chain = await k8sChain(t, n, tag);
  const [first, ...rest] = steps as [string, ...string[]];
  const r0 = await cniTsInstall(first, ['--source', first, '--target', target]);
  t.equal(r0.code, 0, `the first install: ${r0.stderr}`);

  const load = await startLoad(t, chain, target, PODS);
  t.teardown(() => load.stop());
  await afterCalls(load, 4);
  for (const source of rest) {
    const r = await cniTsInstall(source, ['--source', source, '--target', target]);
    t.equal(r.code, 0, `install from ${source}: ${r.stderr}`);
    await afterCalls(load, 4);
  }
  await load.stop();
  const last = rest[rest.length - 1] as string;

  t.comment(`${load.calls()} calls, ${load.failed.length} failed`);
  totals.calls += load.calls();
  totals.failed += load.failed.length;
  t.same(load.failed, [], 'no call failed');
  const left = contents(target);
  t.ok(left[MANIFEST], 'the manifest is there');
  delete left[MANIFEST];
  t.same(left, expectedFrom(last), "only the new build's files remain, with its bytes");
  t.same(ipFiles(chain.dataDir, chain.network), [], 'no address left allocated');
}

const missing = needsRoot;

t.test('an upgrade of the bundles from an older build', { skip: missing, timeout: 900_000 }, async (t) => {
  const older = olderBuild();
  await underLoad(t, 61, 'ub', [older.bundles, BUNDLES]);
});

t.test('an upgrade of the Bun form from an older build', { skip: missing, timeout: 900_000 }, async (t) => {
  const older = olderBuild();
  await underLoad(t, 62, 'uu', [older.bun, BUN]);
});

t.test('switches: bundles → Bun → bundles → Bun', { skip: missing, timeout: 900_000 }, async (t) => {
  await underLoad(t, 63, 'sw', [BUNDLES, BUN, BUNDLES, BUN]);
});

t.test('switches from an older build: older bundles → Bun, older Bun → bundles', { skip: missing, timeout: 900_000 }, async (t) => {
  const older = olderBuild();
  await underLoad(t, 64, 'so', [older.bundles, BUN]);
  await underLoad(t, 65, 'sp', [older.bun, BUNDLES]);
});

t.teardown(() => {
  console.log(`# installs under load: ${totals.calls} calls, ${totals.failed} failed`);
});
