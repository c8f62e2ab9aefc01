// conf-examples/multus-ipvlan-host-local.conflist as e2e/runtimes/conf-examples.test.ts runs every
// other example (that file leaves out the lists that need ipvlan): `cni-run validate`, then
// `cni-run add/check/del` by network name from a conf dir, in a throwaway node whose eth1 is the
// master, for a fresh pod; host-local's dataDir points into a temp dir. Needs a kernel with
// ipvlan: in e2e/kernel-lab.txt.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t from 'tap';
import { cniRun, confDirWith } from '../helpers/cni-run.ts';
import { impl } from '../helpers/impl.ts';
import { makeNetns } from '../helpers/netns.ts';
import { DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { pings } from '../helpers/topology.ts';
import { ipJson, run } from '../../test-support/sh.ts';

const FILE = resolve(import.meta.dirname, '..', '..', 'conf-examples', 'multus-ipvlan-host-local.conflist');

t.test('multus-ipvlan-host-local.conflist: cni-run validate, add, check, del', { skip: impl.lacks('kernel-ipvlan') }, async (t) => {
  const v = await cniRun(['validate', FILE]);
  t.equal(v.code, 0, `validate: ${v.stdout}${v.stderr}`);
  const original = JSON.parse(readFileSync(FILE, 'utf8')) as { name: string; plugins: Record<string, any>[] };
  const dataDir = tempDir(t, 'cnits-ipam-');
  const list = { ...original, plugins: original.plugins.map((p) => ({ ...p, ipam: { ...p['ipam'], dataDir } })) };
  const { confDir, cacheDir } = confDirWith(t, { '10-ipvlan.conflist': list });
  const node = await makeNetns(t, 'exnode');
  const lan = await makeNetns(t, 'exlan');
  // eth1 is the master; its peer in the lan netns carries the list's gateway address
  await run('ip', ['-n', node.name, 'link', 'add', 'eth1', 'type', 'veth', 'peer', 'name', 'lan0', 'netns', lan.name]);
  await run('ip', ['-n', lan.name, 'addr', 'add', '192.168.2.1/24', 'dev', 'lan0']);
  for (const [ns, dev] of [
    [node.name, 'eth1'],
    [lan.name, 'lan0'],
  ] as const) {
    await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
  }
  const pod = await makeNetns(t, 'expod');
  const common = ['--conf-dir', confDir, '--plugin-dir', DIST_BIN, '--cache-dir', cacheDir, '--container-id', `ex-${process.pid}`];
  const cni = (verb: string) => cniRun([verb, original.name, pod.path, ...common], { nodeNetns: node.name });
  const add = await cni('add');
  t.equal(add.code, 0, `add: ${add.stderr}`);
  const result = JSON.parse(add.stdout);
  t.match(result.ips, [{ address: /^192\.168\.2\.2(0\d|1[0-6])\/24$/, gateway: '192.168.2.1' }], 'an address from the range');
  const [eth0] = await ipJson<{ linkinfo?: { info_kind: string; info_data?: { mode?: string } } }[]>(pod.name, ['-d', 'link', 'show', 'dev', 'eth0']);
  t.match(eth0?.linkinfo, { info_kind: 'ipvlan', info_data: { mode: 'l2' } }, 'eth0 is an l2 ipvlan');
  t.ok(await pings(pod.name, '192.168.2.1'), 'the pod reaches the gateway on the master network');
  const check = await cni('check');
  t.equal(check.code, 0, `check: ${check.stderr}`);
  const del = await cni('del');
  t.equal(del.code, 0, `del: ${del.stderr}`);
  t.same(
    (await ipJson<{ ifname: string }[]>(pod.name, ['link', 'show'])).map((l) => l.ifname),
    ['lo'],
    'after DEL the pod has only lo',
  );
  const left = readdirSync(dataDir, { recursive: true })
    .map(String)
    .filter((f) => /\d+\.\d+\.\d+\.\d+$/.test(f));
  t.same(left, [], 'after DEL no address is allocated');
  t.notOk(existsSync(join(cacheDir, 'results', `${original.name}-ex-${process.pid}-eth0`)), 'DEL removed the cached result');
  t.equal((await cni('del')).code, 0, 'DEL again succeeds');
});
