// The built vlan + host-local: a master veth in a node netns whose peer is in a "switch" netns,
// where a VLAN 100 link holds the gateway. Every spec version (ADD → a vlan link with ID 100 in
// the pod → CHECK → DEL → nothing left → DEL again); frames leave the master tagged with the
// vlanId (tcpdump on the wire), a pod on another VLAN cannot reach the gateway; the MTU rule;
// the master in the container; a failing ADD undone; DEL after the netns or the master is gone;
// GC and STATUS. This machine's kernel may lack 802.1Q: then the kernel lab runs this file.
import t from 'tap';
import { gc, status } from '../helpers/conflist.ts';
import { impl } from '../helpers/impl.ts';
import { ipFiles, link, podLinks } from '../helpers/node-state.ts';
import { execPlugin } from '../helpers/plugins.ts';
import { allVersionsRan, hasCheck, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';
import { capture, makeSwitch, MASTER, VLAN_ID, VLAN_NETWORK, VLAN_V4, vlanAttachment, vlanConflist, vlanPlugin, WIRE } from '../helpers/vlan.ts';
import { needsRoot, run } from '../../test-support/sh.ts';

const skip = needsRoot || impl.lacks('kernel-vlan');
const vlanOf = (l: Awaited<ReturnType<typeof link>>) => ({ kind: l?.linkinfo?.info_kind, id: l?.linkinfo?.info_data?.['id'] });

const done: string[] = [];
for (const v of SPEC_VERSIONS) {
  t.test(`${v}: ADD makes a vlan on the master in the pod, CHECK, DEL leaves nothing, DEL again`, { skip }, async (t) => {
    const { node, dataDir } = await makeTopology(t);
    await makeSwitch(t, node);
    const pod = await makePod(t);
    const att = vlanAttachment(vlanConflist(v, vlanPlugin(dataDir)), { node, pod, id: `vlan-${v}` });
    const r = await att.add();
    t.equal(isPre030(v) ? r.ip4.ip : r.ips[0].address, `${VLAN_V4.first}/24`, 'the first address of the range');
    const eth0 = await link(pod.name, 'eth0');
    t.same(vlanOf(eth0), { kind: 'vlan', id: VLAN_ID }, 'eth0 is a vlan with the vlanId');
    t.equal(eth0?.address, (await link(node.name, MASTER))?.address, "with the master's MAC");
    if (!isPre030(v)) t.same(r.interfaces, [{ name: 'eth0', mac: eth0?.address, sandbox: pod.path }], 'the result names it');
    t.ok(await pings(pod.name, VLAN_V4.gateway), 'pod → gateway on VLAN 100');
    if (hasCheck(v)) await t.resolves(att.check(), 'CHECK passes');
    await att.del();
    t.same(await podLinks(pod.name), [], 'nothing left in the pod');
    t.same(ipFiles(dataDir, VLAN_NETWORK), [], 'the address released');
    t.ok(await link(node.name, MASTER), 'the master stays');
    await t.resolves(att.del(), 'a second DEL succeeds');
    done.push(v);
  });
}
allVersionsRan(t, done, skip);

t.test('frames leave the master tagged with the vlanId; a pod on another VLAN does not reach the gateway', { skip }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const sw = await makeSwitch(t, node);
  const [podA, podB] = [await makePod(t), await makePod(t)];
  const a = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir)), { node, pod: podA, id: 'vlan-a' });
  const b = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir, { vlanId: 200 })), { node, pod: podB, id: 'vlan-b' });
  await a.add();
  await b.add();
  t.teardown(() => Promise.all([a.del(), b.del()]));
  const lines = await capture(sw.name, WIRE, async () => {
    t.ok(await pings(podA.name, VLAN_V4.gateway), 'VLAN 100 pod → gateway');
  });
  const requests = lines.filter((l) => l.includes('ICMP echo request'));
  t.ok(requests.length > 0, `tcpdump saw the echo request on the wire:\n${lines.join('\n')}`);
  for (const l of requests)
    t.match(l, new RegExp(`ethertype 802\\.1Q \\(0x8100\\).*vlan ${VLAN_ID}, p 0, ethertype IPv4.*${VLAN_V4.first.replaceAll('.', '\\.')} > `), 'tagged 100');
  t.notOk(await pings(podB.name, VLAN_V4.gateway), 'the VLAN 200 pod cannot reach it');
  t.same(vlanOf(await link(podB.name, 'eth0')), { kind: 'vlan', id: 200 }, 'because its frames carry 200');
});

t.test("the MTU: set when asked; above the master's refused with code 7 before IPAM, nothing left", { skip }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  await makeSwitch(t, node);
  const pod = await makePod(t);
  const ok = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir, { mtu: 1400 })), { node, pod, id: 'vlan-mtu' });
  await ok.add();
  t.equal((await link(pod.name, 'eth0'))?.mtu, 1400, 'mtu 1400');
  await ok.check();
  await ok.del();
  const big = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir, { mtu: 1501 })), { node, pod, id: 'vlan-mtu-big' });
  await t.rejects(big.add(), { code: 7, message: 'invalid MTU 1501, must be [0, master MTU(1500)]' });
  t.same(await podLinks(pod.name), [], 'no link');
  t.same(ipFiles(dataDir, VLAN_NETWORK), [], 'no allocation');
  await t.resolves(big.del(), 'DEL of the refused attachment succeeds');
});

t.test('linkInContainer: the master is in the pod', { skip }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  await run('ip', ['-n', pod.name, 'link', 'add', 'pmaster', 'type', 'veth', 'peer', 'name', 'ppeer']);
  // up: a vlan cannot come up on a master that is down
  await run('ip', ['-n', pod.name, 'link', 'set', 'pmaster', 'up']);
  const att = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir, { master: 'pmaster', linkInContainer: true, vlanId: 7 })), { node, pod, id: 'vlan-in' });
  await att.add();
  const eth0 = await link(pod.name, 'eth0');
  t.same(vlanOf(eth0), { kind: 'vlan', id: 7 });
  t.equal((eth0 as { link?: string } | undefined)?.link, 'pmaster', 'on the pod’s master');
  await att.check();
  await att.del();
  t.same((await podLinks(pod.name)).sort(), ['pmaster', 'ppeer'], 'only the master pair left');
  const hostSide = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir, { master: 'pmaster' })), { node, pod, id: 'vlan-in2' });
  await t.rejects(hostSide.add(), /failed to lookup master "pmaster": Link not found/, 'control: without linkInContainer the master is looked up in the node');
});

t.test('a failing ADD leaves no link and no allocation', { skip }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  await makeSwitch(t, node);
  const pod = await makePod(t);
  await run('ip', ['-n', pod.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'taken0']);
  const taken = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir)), { node, pod, id: 'vlan-taken' });
  await t.rejects(taken.add(), /failed to rename vlan to "eth0"/, 'the name is taken in the pod');
  t.same(ipFiles(dataDir, VLAN_NETWORK), [], 'no allocation');
  await run('ip', ['-n', pod.name, 'link', 'del', 'eth0']);
  const badIpam = vlanAttachment(
    vlanConflist('1.0.0', vlanPlugin(dataDir, { ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.78.0.0/30', rangeStart: '10.78.0.5' }]] } })),
    {
      node,
      pod,
      id: 'vlan-ipam',
    },
  );
  await t.rejects(badIpam.add(), /10\.78\.0\.5/, 'IPAM refuses its range after the link is made');
  t.same(await podLinks(pod.name), [], 'the vlan is gone again');
});

t.test('a node with its own eth0: the pod still gets its eth0 (the link is born under another name)', { skip }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  await makeSwitch(t, node);
  const pod = await makePod(t);
  await run('ip', ['-n', node.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0peer']);
  const att = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir)), { node, pod, id: 'vlan-eth0' });
  await att.add();
  t.same(vlanOf(await link(pod.name, 'eth0')), { kind: 'vlan', id: VLAN_ID }, "the pod's eth0 is the vlan");
  t.equal((await link(node.name, 'eth0'))?.linkinfo?.info_kind, 'veth', "the node's eth0 untouched");
  t.ok(await pings(pod.name, VLAN_V4.gateway), 'pod → gateway');
  await att.del();
});

t.test('bad input: a master that does not exist', { skip }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  const r = await execPlugin(
    'vlan',
    { command: 'ADD', containerId: 'vlan-bad', netns: pod.path, ifname: 'eth0', nodeNetns: node.name },
    { cniVersion: '1.0.0', name: VLAN_NETWORK, ...vlanPlugin(dataDir, { master: 'nosuch0' }) },
  );
  t.equal(r.code, 1);
  t.same(r.json, { code: 999, msg: 'failed to lookup master "nosuch0": Link not found' });
  t.same(ipFiles(dataDir, VLAN_NETWORK), [], 'no allocation');
});

t.test('DEL after the netns is gone, and after the master is gone, releases the address', { skip }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  await makeSwitch(t, node);
  const [p1, p2] = [await makePod(t), await makePod(t)];
  const gone = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir)), { node, pod: p1, id: 'vlan-gone' });
  // another VLAN ID: a master carries each ID once (the kernel answers EEXIST)
  const orphan = vlanAttachment(vlanConflist('1.0.0', vlanPlugin(dataDir, { vlanId: VLAN_ID + 1 })), { node, pod: p2, id: 'vlan-orphan' });
  await gone.add();
  await orphan.add();
  t.equal(ipFiles(dataDir, VLAN_NETWORK).length, 2, 'control: two addresses');
  await run('ip', ['netns', 'del', p1.name]);
  await gone.del();
  t.equal(ipFiles(dataDir, VLAN_NETWORK).length, 1, 'netns gone: released');
  // Deleting the master takes its vlans along; the reference's DEL then fails looking it up.
  await run('ip', ['-n', node.name, 'link', 'del', MASTER]);
  await orphan.del();
  t.same(ipFiles(dataDir, VLAN_NETWORK), [], 'master gone: released');
});

t.test('GC releases the allocation of an attachment no longer listed; STATUS passes', { skip }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  await makeSwitch(t, node);
  const pod = await makePod(t);
  const list = vlanConflist('1.1.0', vlanPlugin(dataDir));
  const att = vlanAttachment(list, { node, pod, id: 'vlan-gc' });
  await att.add();
  t.teardown(() => att.del());
  await gc(list, [{ containerID: 'vlan-gc', ifname: 'eth0' }], { nodeNetns: node.name });
  t.equal(ipFiles(dataDir, VLAN_NETWORK).length, 1, 'a listed attachment keeps its address');
  await gc(list, [], { nodeNetns: node.name });
  t.same(ipFiles(dataDir, VLAN_NETWORK), [], 'an unlisted one loses it');
  await t.resolves(status(list, { nodeNetns: node.name }), 'STATUS passes');
});
