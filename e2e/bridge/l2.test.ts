// bridge port features, each shown by the port flags the kernel reports AND by traffic:
// hairpinMode, portIsolation, macspoofchk (vlan and vlanTrunk: vlan.test.ts).
// Judges the implementation CNI_E2E_FORM names (ours by default, go for the reference; see e2e/helpers/impl.ts).
import t from 'tap';
import { addPod, addrs, bridgeConf, delPod, hostVeth, POD_V4, type BridgeResult, type PodRef } from '../helpers/bridge-net.ts';
import { impl } from '../helpers/impl.ts';
import { makeNetns } from '../helpers/netns.ts';
import { leftovers, link, spoofRules } from '../helpers/node-state.ts';
import { run } from '../../test-support/sh.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';

const dir = impl.dir;
// Pods get .2–.100; the addresses tests place by hand sit above.
const V4 = { subnet: POD_V4.subnet, rangeEnd: '10.244.0.100' };

async function addAll(node: string, pods: [object, PodRef][]): Promise<BridgeResult[]> {
  return Promise.all(pods.map(([conf, pod]) => addPod(dir, node, conf, pod)));
}

async function portFlag(node: string, r: BridgeResult, flag: 'hairpin' | 'isolated'): Promise<unknown> {
  return (await link(node, hostVeth(r) ?? 'none'))?.linkinfo?.info_slave_data?.[flag];
}

t.test(`[${impl.label}] hairpinMode: the port reflects frames back to the pod it came from`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const on = bridgeConf({ dataDir, v4: V4, bridgeFields: { hairpinMode: true } });
  const off = bridgeConf({ dataDir, v4: V4 });
  const p = { ns: await makePod(t), id: 'hairpin-on' };
  const q = { ns: await makePod(t), id: 'hairpin-off' };
  const [rp, rq] = await addAll(node.name, [
    [on, p],
    [off, q],
  ]);
  t.equal(await portFlag(node.name, rp as BridgeResult, 'hairpin'), true, 'hairpin is on for the hairpinMode pod');
  t.equal(await portFlag(node.name, rq as BridgeResult, 'hairpin'), false, 'hairpin is off for the other pod');

  // Two VEPA macvlans on the pod's eth0 send everything to the bridge: they can only talk
  // to each other if the bridge sends their frames back out of the port they came in on.
  async function vepaPair(pod: PodRef, base: number): Promise<boolean> {
    const ends = [await makeNetns(t, 'vepa'), await makeNetns(t, 'vepa')];
    for (const [i, end] of ends.entries()) {
      const dev = `mv${i}`;
      await run('ip', ['-n', pod.ns.name, 'link', 'add', dev, 'link', 'eth0', 'type', 'macvlan', 'mode', 'vepa']);
      await run('ip', ['-n', pod.ns.name, 'link', 'set', dev, 'netns', end.name]);
      await run('ip', ['-n', end.name, 'addr', 'add', `10.244.0.${base + i}/24`, 'dev', dev]);
      await run('ip', ['-n', end.name, 'link', 'set', dev, 'up']);
    }
    return pings((ends[0] as { name: string }).name, `10.244.0.${base + 1}`);
  }
  t.ok(await vepaPair(p, 201), 'with hairpin, two VEPA macvlans behind one port reach each other');
  t.notOk(await vepaPair(q, 211), 'without hairpin, they do not');

  await Promise.all([delPod(dir, node.name, on, p, rp), delPod(dir, node.name, off, q, rq)]);
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'nothing left after DEL');
});

t.test(`[${impl.label}] portIsolation: isolated pods reach the gateway, not each other`, { skip: impl.lacks('portIsolation') }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const iso = bridgeConf({ dataDir, v4: V4, bridgeFields: { isGateway: true, portIsolation: true } });
  const open = bridgeConf({ dataDir, v4: V4, bridgeFields: { isGateway: true } });
  const [nsA, nsB, nsC] = await Promise.all([makePod(t), makePod(t), makePod(t)]);
  const a = { ns: nsA, id: 'iso-a' };
  const b = { ns: nsB, id: 'iso-b' };
  const c = { ns: nsC, id: 'open-c' };
  const [ra, rb, rc] = (await addAll(node.name, [
    [iso, a],
    [iso, b],
    [open, c],
  ])) as [BridgeResult, BridgeResult, BridgeResult];
  t.equal(await portFlag(node.name, ra, 'isolated'), true, 'A port is isolated');
  t.equal(await portFlag(node.name, rb, 'isolated'), true, 'B port is isolated');
  t.equal(await portFlag(node.name, rc, 'isolated'), false, 'C port (no portIsolation) is not');

  const [gwA, gwB, aToC] = await Promise.all([pings(nsA.name, POD_V4.gateway), pings(nsB.name, POD_V4.gateway), pings(nsA.name, addrs(rc).v4 ?? '')]);
  t.ok(gwA, 'isolated A reaches the gateway');
  t.ok(gwB, 'isolated B reaches the gateway');
  t.ok(aToC, 'isolated A reaches non-isolated C');
  const [aToB, bToA] = await Promise.all([pings(nsA.name, addrs(rb).v4 ?? ''), pings(nsB.name, addrs(ra).v4 ?? '')]);
  t.notOk(aToB, 'isolated A does not reach isolated B');
  t.notOk(bToA, 'isolated B does not reach isolated A');

  await Promise.all([delPod(dir, node.name, iso, a, ra), delPod(dir, node.name, iso, b, rb), delPod(dir, node.name, open, c, rc)]);
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'nothing left after DEL');
});

t.test(`[${impl.label}] macspoofchk: frames with a changed source MAC are dropped`, { skip: impl.lacks('macspoofchk') }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, v4: V4, bridgeFields: { isGateway: true, macspoofchk: true } });
  const [nsA, nsB] = await Promise.all([makePod(t), makePod(t)]);
  const a = { ns: nsA, id: 'spoof-a' };
  const b = { ns: nsB, id: 'spoof-b' };
  const [ra, rb] = (await addAll(node.name, [
    [conf, a],
    [conf, b],
  ])) as [BridgeResult, BridgeResult];
  const ipB = addrs(rb).v4 ?? '';
  t.ok((await spoofRules(node.name)).length > 0, 'spoofcheck rules are installed');
  t.ok(await pings(nsA.name, ipB), 'A reaches B with its own MAC');
  t.ok(await pings(nsA.name, POD_V4.gateway), 'A reaches the gateway with its own MAC');

  const mac = (await link(nsA.name, 'eth0'))?.address ?? '';
  t.equal(mac, ra.interfaces.find((i) => i.name === 'eth0')?.mac, 'the result carries the container MAC');
  await run('ip', ['-n', nsA.name, 'link', 'set', 'dev', 'eth0', 'address', '02:00:5e:00:53:99']);
  const [toB, toGw, bToGw] = await Promise.all([pings(nsA.name, ipB), pings(nsA.name, POD_V4.gateway), pings(nsB.name, POD_V4.gateway)]);
  t.notOk(toB, 'with a changed MAC, A no longer reaches B');
  t.notOk(toGw, 'with a changed MAC, A no longer reaches the gateway');
  t.ok(bToGw, 'B, MAC unchanged, still reaches the gateway');

  await run('ip', ['-n', nsA.name, 'link', 'set', 'dev', 'eth0', 'address', mac]);
  t.ok(await pings(nsA.name, ipB), 'with its MAC restored, A reaches B again');

  await Promise.all([delPod(dir, node.name, conf, a, ra), delPod(dir, node.name, conf, b, rb)]);
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'nothing left after DEL (spoofcheck chains included)');
});
