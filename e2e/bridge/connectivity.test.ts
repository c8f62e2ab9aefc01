// bridge + host-local: pods on one bridge reach each other and the gateway over IPv4 and IPv6,
// reach a remote host through ipMasq (which sees the node's address), and get the configured MTU.
// Judges the implementation CNI_E2E_FORM names (ours by default, go for the reference; see e2e/helpers/impl.ts).
import t, { type Test } from 'tap';
import { addPod, addrs, bridgeConf, delPod, hostVeth, POD_V4, POD_V6 } from '../helpers/bridge-net.ts';
import { impl } from '../helpers/impl.ts';
import { leftovers, link, masqRulesOf, nftMasq, iptablesMasq } from '../helpers/node-state.ts';
import { makePod, makeTopology, peerSeenBy, pings, startPeerReporter, UPLINK } from '../helpers/topology.ts';

const dir = impl.dir;

t.test(`[${impl.label}] two pods ping each other and the gateway over IPv4 and IPv6`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, v6: { subnet: POD_V6.subnet }, bridgeFields: { isGateway: true } });
  const [nsA, nsB] = await Promise.all([makePod(t), makePod(t)]);
  const a = { ns: nsA, id: 'pod-a' };
  const b = { ns: nsB, id: 'pod-b' };
  const [ra, rb] = await Promise.all([addPod(dir, node.name, conf, a), addPod(dir, node.name, conf, b)]);
  const ipa = addrs(ra);
  const ipb = addrs(rb);
  t.ok(ipa.v4 && ipa.v6 && ipb.v4 && ipb.v6, `each pod got an IPv4 and an IPv6 address: ${ipa.all.join(' ')} / ${ipb.all.join(' ')}`);
  t.not(ipa.v4, ipb.v4, 'distinct IPv4 addresses');
  t.not(ipa.v6, ipb.v6, 'distinct IPv6 addresses');
  t.match(ra.ips, [{ gateway: POD_V4.gateway }, { gateway: POD_V6.gateway }], 'the result names the gateways');

  const paths: [string, string, string][] = [
    ['A → B over IPv4', nsA.name, ipb.v4 ?? ''],
    ['A → B over IPv6', nsA.name, ipb.v6 ?? ''],
    ['B → A over IPv4', nsB.name, ipa.v4 ?? ''],
    ['B → A over IPv6', nsB.name, ipa.v6 ?? ''],
    ['A → gateway over IPv4', nsA.name, POD_V4.gateway],
    ['A → gateway over IPv6', nsA.name, POD_V6.gateway],
    ['B → gateway over IPv4', nsB.name, POD_V4.gateway],
    ['B → gateway over IPv6', nsB.name, POD_V6.gateway],
  ];
  const answers = await Promise.all(paths.map(([, from, to]) => pings(from, to)));
  paths.forEach(([what, , to], i) => t.ok(answers[i], `${what} (${to}) answers ping`));

  await Promise.all([delPod(dir, node.name, conf, a, ra), delPod(dir, node.name, conf, b, rb)]);
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'nothing left after DEL');
  t.same(await leftovers({ node: node.name, pod: nsA.name, dataDir, network: 'podnet' }), {}, 'pod A is empty again');
  await t.resolves(delPod(dir, node.name, conf, a), 'a second DEL succeeds');
});

// The remote has no route back to the pod subnets: an answer proves the node masqueraded.
async function masqueradeCase(t: Test, backend: string | undefined): Promise<void> {
  const { node, remote, dataDir } = await makeTopology(t, { remote: true });
  if (remote === undefined) throw new Error('topology without remote');
  await startPeerReporter(t, remote.name);
  const masq = { ipMasq: true, isDefaultGateway: true, ...(backend !== undefined && { ipMasqBackend: backend }) };
  const conf = bridgeConf({ dataDir, v6: { subnet: POD_V6.subnet }, bridgeFields: masq });
  const plain = bridgeConf({
    dataDir,
    name: 'nomasq',
    bridge: 'cni1',
    v4: { subnet: '10.245.0.0/24' },
    v6: { subnet: 'fd00:10:245::/64' },
    bridgeFields: { isDefaultGateway: true },
  });
  const pod = { ns: await makePod(t), id: 'masq-pod' };
  const control = { ns: await makePod(t), id: 'plain-pod' };
  const [r] = await Promise.all([addPod(dir, node.name, conf, pod), addPod(dir, node.name, plain, control)]);
  const ips = addrs(r);

  // both pods reach their gateways at once (no DAD wait: docs/architecture.md), so a missing
  // answer below is about masquerading, nothing else
  const ready = await Promise.all([
    pings(pod.ns.name, POD_V4.gateway),
    pings(pod.ns.name, POD_V6.gateway),
    pings(control.ns.name, '10.245.0.1'),
    pings(control.ns.name, 'fd00:10:245::1'),
  ]);
  t.same(ready, [true, true, true, true], 'both pods reach their gateways over IPv4 and IPv6');
  const [seen4, seen6, ctl4, ctl6] = await Promise.all([
    peerSeenBy(pod.ns.name, UPLINK.remoteV4),
    peerSeenBy(pod.ns.name, UPLINK.remoteV6),
    peerSeenBy(control.ns.name, UPLINK.remoteV4),
    peerSeenBy(control.ns.name, UPLINK.remoteV6),
  ]);
  t.equal(seen4.peer, UPLINK.nodeV4, `over IPv4 the remote sees the node's address (${seen4.error})`);
  t.equal(seen6.peer, UPLINK.nodeV6, `over IPv6 the remote sees the node's address (${seen6.error})`);
  t.notOk(ctl4.ok, `control: a pod without ipMasq gets no IPv4 answer (remote saw ${ctl4.peer || 'nothing'})`);
  t.notOk(ctl6.ok, `control: a pod without ipMasq gets no IPv6 answer (remote saw ${ctl6.peer || 'nothing'})`);

  const rules = await masqRulesOf(node.name, pod.id, ips.all);
  t.ok(rules.length > 0, `masquerade rules for the pod exist: ${rules.length}`);
  if (backend === 'nftables') {
    t.ok((await nftMasq(node.name)).length > 0, 'the rules are in the nftables table');
    t.same(await iptablesMasq(node.name), [], 'nothing in iptables');
  }
  await delPod(dir, node.name, conf, pod, r);
  t.same(await masqRulesOf(node.name, pod.id, ips.all), [], 'DEL removes the pod masquerade rules');
  t.notOk((await peerSeenBy(pod.ns.name, UPLINK.remoteV4)).ok, 'the deleted pod no longer reaches the remote');
}

t.test(`[${impl.label}] ipMasq (default backend): the remote sees the node's address`, { skip: impl.lacks() }, (t) => masqueradeCase(t, undefined));

t.test(`[${impl.label}] ipMasq with ipMasqBackend nftables`, { skip: impl.lacks('ipMasqBackend') }, (t) => masqueradeCase(t, 'nftables'));

t.test(`[${impl.label}] mtu is set on both veth ends and on the bridge it creates`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, bridgeFields: { mtu: 1400, isGateway: true } });
  const pod = { ns: await makePod(t), id: 'mtu-pod' };
  const r = await addPod(dir, node.name, conf, pod);
  const veth = hostVeth(r);
  t.ok(veth, 'the result names the host veth');
  t.equal((await link(pod.ns.name, 'eth0'))?.mtu, 1400, 'container eth0 has mtu 1400');
  t.equal((await link(node.name, veth ?? 'none'))?.mtu, 1400, 'host veth has mtu 1400');
  t.equal((await link(node.name, 'cni0'))?.mtu, 1400, 'the new bridge has mtu 1400');
  t.ok(await pings(pod.ns.name, POD_V4.gateway), 'the pod reaches its gateway');
  await delPod(dir, node.name, conf, pod, r);
  t.same(await leftovers({ node: node.name, pod: pod.ns.name, dataDir, network: 'podnet' }), {}, 'nothing left after DEL');
});

// A bridge that lost its last port has no MAC of its own (00:00:00:00:00:00) until a port joins.
t.test(`[${impl.label}] a bridge whose pods are all gone takes a new gateway pod`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const l2ish = bridgeConf({ dataDir });
  const gw = bridgeConf({ dataDir, bridgeFields: { isGateway: true } });
  const first = { ns: await makePod(t), id: 'first' };
  await delPod(dir, node.name, l2ish, first, await addPod(dir, node.name, l2ish, first));
  t.equal((await link(node.name, 'cni0'))?.address, '00:00:00:00:00:00', 'the empty bridge has a zero MAC (the kernel state this test is about)');
  const next = { ns: await makePod(t), id: 'next' };
  const r = await addPod(dir, node.name, gw, next).then(
    (r) => r,
    (e: Error) => e,
  );
  t.notOk(r instanceof Error, `ADD with isGateway succeeds: ${r instanceof Error ? r.message : 'ok'}`);
  if (r instanceof Error) return;
  t.match((await link(node.name, 'cni0'))?.address, /^(?!00:00:00:00:00:00)([0-9a-f]{2}:){5}[0-9a-f]{2}$/, 'the bridge has a MAC again');
  t.ok(await pings(next.ns.name, POD_V4.gateway), 'the new pod reaches its gateway');
  await delPod(dir, node.name, gw, next, r);
  t.same(await leftovers({ node: node.name, pod: next.ns.name, dataDir, network: 'podnet' }), {}, 'nothing left after DEL');
});
