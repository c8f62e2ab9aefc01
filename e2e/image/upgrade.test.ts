// An upgrade on a live node, the container path: the node runs the bundles, installed with their
// conflist by the bundles' own installer (`dist/bin/cni-ts install`, as from a package), while
// pods come and go: two loops of cnitool ADD and DEL of the Kubernetes chain against the plugin
// dir. Then the DaemonSet's init container (deploy/daemonset.yaml), run from the image by Podman,
// replaces them with the image's Bun form. Not one call may fail, before, during or after: each
// file is replaced by rename, so a runtime's exec finds the old program or the new one.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { cnitool, cnitoolMissing } from '../helpers/cnitool.ts';
import { CONFIG_MAP_DATA, imageUnderTest, INIT, makeNodeDirs, runContainer } from '../helpers/image.ts';
import { makeNetns } from '../helpers/netns.ts';
import { isElf, tempDir } from '../helpers/plugins.ts';
import { makeTopology } from '../helpers/topology.ts';
import { installArgs } from '../../test-support/install-args.ts';
import { needsRoot, tryRun } from '../../test-support/sh.ts';

const BUNDLED_INSTALLER = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'cni-ts');
const [TEMPLATE_KEY = ''] = Object.keys(CONFIG_MAP_DATA);
const ARGS = installArgs(INIT.args ?? []);

interface Call {
  readonly verb: string;
  readonly start: number;
  readonly end: number;
  readonly failure?: string;
}

t.test('bundles → the image Bun form under a loop of chain ADD/DEL: no call fails', { skip: needsRoot }, async (t) => {
  if (cnitoolMissing !== undefined) return void t.fail(cnitoolMissing);
  const image = await imageUnderTest();
  if ('missing' in image) return void t.fail(image.missing);
  const node = makeNodeDirs(t);
  const [binDir, confDir] = [node.hostPaths['/opt/cni/bin'] ?? '', node.hostPaths['/etc/cni/net.d'] ?? ''];

  const sets = Object.entries(ARGS.set).flatMap(([k, v]) => ['--set', `${k}=${v}`]);
  const bundles = await tryRun(BUNDLED_INSTALLER, [
    'install',
    '--target',
    binDir,
    '--conf-dir',
    confDir,
    '--conflist',
    join(node.configMap, TEMPLATE_KEY),
    ...sets,
  ]);
  t.equal(bundles.code, 0, `the bundles' installer: ${bundles.stdout}${bundles.stderr}`);
  t.notOk(isElf(join(binDir, 'bridge')), 'bridge is a bundle (a script)');
  const network = (JSON.parse(readFileSync(join(confDir, TEMPLATE_KEY), 'utf8')) as { name: string }).name;

  const { node: nodeNs } = await makeTopology(t);
  const cacheDir = tempDir(t, 'cnits-cache-');
  const calls: Call[] = [];
  let stop = false;
  const loop = async (i: number): Promise<void> => {
    const pod = await makeNetns(t, 'uppod');
    const capArgs = { portMappings: [{ hostPort: 18094 + i, containerPort: 80, protocol: 'tcp' }] };
    const call = async (verb: string): Promise<void> => {
      const start = Date.now();
      const r = await cnitool({ confDir, cniPath: [binDir], nodeNetns: nodeNs.name, cacheDir, capArgs }, verb, network, pod.path);
      calls.push({ verb, start, end: Date.now(), ...(r.code === 0 ? {} : { failure: `pod ${i} ${verb}: exit ${r.code}: ${r.stdout}${r.stderr}` }) });
    };
    t.teardown(() => call('del'));
    while (!stop) {
      await call('add');
      await call('del');
    }
  };
  const rounds = (from: number): number => calls.filter((c) => c.start >= from).length;
  const until = async (ok: () => boolean): Promise<void> => {
    while (!ok()) await new Promise((r) => setTimeout(r, 50));
  };
  const loops = [loop(0), loop(1)];
  await until(() => rounds(0) >= 4);

  const upgradeStart = Date.now();
  const upgrade = await runContainer(t, { id: image.id, c: INIT, node });
  const upgradeEnd = Date.now();
  await until(() => rounds(upgradeEnd) >= 4);
  stop = true;
  await Promise.all(loops);

  t.equal(upgrade.result.code, 0, `the init container upgrades the node: ${upgrade.result.stdout}${upgrade.result.stderr}`);
  t.ok(isElf(join(binDir, 'bridge')) && isElf(join(binDir, 'cni-ts')), 'the plugin dir now holds the Bun form');
  t.notOk(
    readdirSync(binDir).some((f) => f.includes('tmp')),
    'no temporary file is left',
  );
  const during = calls.filter((c) => c.end > upgradeStart && c.start < upgradeEnd);
  t.ok(during.length > 0, `${during.length} calls ran while the image's installer ran (${upgradeEnd - upgradeStart} ms)`);
  t.ok(
    calls.some((c) => c.start > upgradeEnd),
    'calls ran on the Bun form after it',
  );
  t.same(
    calls.filter((c) => c.failure !== undefined).map((c) => c.failure),
    [],
    `none of ${calls.length} calls failed`,
  );
});
