// bridge VLANs: vlan (the port's PVID, shown by the VLAN table and by traffic) and vlanTrunk.
// Apart from l2.test.ts because they need bridge VLAN filtering: where the kernel lacks it they
// skip, and the kernel lab (e2e/kernel-lab.txt) runs them.
// Judges the implementation CNI_E2E_FORM names (ours by default, go for the reference; see e2e/helpers/impl.ts).
import t from 'tap';
import { addPod, addrs, bridgeConf, delPod, hostVeth, POD_V4, type BridgeResult, type PodRef } from '../helpers/bridge-net.ts';
import { impl } from '../helpers/impl.ts';
import { leftovers, link, vlanTable } from '../helpers/node-state.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';

const dir = impl.dir;
// Pods get .2–.100; the addresses tests place by hand sit above.
const V4 = { subnet: POD_V4.subnet, rangeEnd: '10.244.0.100' };

async function addAll(node: string, pods: [object, PodRef][]): Promise<BridgeResult[]> {
  return Promise.all(pods.map(([conf, pod]) => addPod(dir, node, conf, pod)));
}

t.test(`[${impl.label}] vlan: pods on one VLAN reach each other, not pods on another`, { skip: impl.lacks('kernel-vlan-filtering') }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const v100 = bridgeConf({ dataDir, v4: V4, bridgeFields: { vlan: 100 } });
  const v200 = bridgeConf({ dataDir, v4: V4, bridgeFields: { vlan: 200 } });
  const [nsA, nsB, nsC] = await Promise.all([makePod(t), makePod(t), makePod(t)]);
  const a = { ns: nsA, id: 'vlan-a' };
  const b = { ns: nsB, id: 'vlan-b' };
  const c = { ns: nsC, id: 'vlan-c' };
  // the first ADD creates the bridge (with vlan_filtering): not in parallel with the others
  const ra = await addPod(dir, node.name, v100, a);
  const [rb, rc] = (await addAll(node.name, [
    [v100, b],
    [v200, c],
  ])) as [BridgeResult, BridgeResult];
  t.equal((await link(node.name, 'cni0'))?.linkinfo?.info_data?.['vlan_filtering'], 1, 'the bridge filters VLANs');

  const table = await vlanTable(node.name);
  const entry = (r: BridgeResult, vid: number) => table.get(hostVeth(r) ?? '')?.find((v) => v.vlan === vid);
  for (const [who, r, vid] of [
    ['A', ra, 100],
    ['B', rb, 100],
    ['C', rc, 200],
  ] as const) {
    const e = entry(r, vid);
    t.ok(e, `${who}'s port is in VLAN ${vid}`);
    t.ok(e?.flags?.includes('PVID') && e.flags.includes('Egress Untagged'), `${who}: VLAN ${vid} is PVID and untagged (${e?.flags?.join(' ')})`);
  }
  t.ok(await pings(nsA.name, addrs(rb).v4 ?? ''), 'A (VLAN 100) reaches B (VLAN 100)');
  t.notOk(await pings(nsA.name, addrs(rc).v4 ?? ''), 'A (VLAN 100) does not reach C (VLAN 200)');

  await Promise.all([delPod(dir, node.name, v100, a, ra), delPod(dir, node.name, v100, b, rb), delPod(dir, node.name, v200, c, rc)]);
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'nothing left after DEL');
});

t.test(`[${impl.label}] vlanTrunk: the port carries the trunk VLANs tagged`, { skip: impl.lacks('vlanTrunk', 'kernel-vlan-filtering') }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, v4: V4, bridgeFields: { vlan: 100, vlanTrunk: [{ id: 101 }, { minID: 200, maxID: 202 }] } });
  const pod = { ns: await makePod(t), id: 'trunk' };
  const r = await addPod(dir, node.name, conf, pod);
  const vlans = (await vlanTable(node.name)).get(hostVeth(r) ?? '') ?? [];
  const tagged = vlans.filter((v) => !v.flags?.includes('Egress Untagged')).map((v) => v.vlan);
  t.same(
    tagged.sort((x, y) => x - y),
    [101, 200, 201, 202],
    'trunk VLANs are tagged on the port',
  );
  t.ok(vlans.find((v) => v.vlan === 100)?.flags?.includes('PVID'), 'VLAN 100 is the native (PVID) VLAN');
  await delPod(dir, node.name, conf, pod, r);
  t.same(await leftovers({ node: node.name, pod: pod.ns.name, dataDir, network: 'podnet' }), {}, 'nothing left after DEL');
});
