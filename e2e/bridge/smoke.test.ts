// bridge smoke test: the built bridge with our host-local, run inside a throwaway
// node netns. Two pods talk to each other and to the gateway over IPv4 and IPv6; CHECK
// passes; DEL (twice) leaves no veth and no allocation; L2 mode; a failed ADD leaves nothing.
import t, { type Test } from 'tap';
import { addrs } from '../helpers/bridge-net.ts';
import { attachment } from '../helpers/conflist.ts';
import { makeNetns, type TestNetns } from '../helpers/netns.ts';
import { ipFiles, veths } from '../helpers/node-state.ts';
import { tempDir } from '../helpers/plugins.ts';
import { ipJson, needsRoot, run } from '../../test-support/sh.ts';
import { pings } from '../helpers/topology.ts';

const BRIDGE = 'cni-smoke';
const V4 = { subnet: '10.250.0.0/24', gateway: '10.250.0.1' };
const V6 = { subnet: 'fd00:250::/64', gateway: 'fd00:250::1' };

function conflist(dataDir: string, ipam: object = { type: 'host-local', dataDir, ranges: [[{ subnet: V4.subnet }], [{ subnet: V6.subnet }]] }) {
  return { cniVersion: '1.1.0', name: 'smoke', plugins: [{ type: 'bridge', bridge: BRIDGE, isGateway: true, ipam }] };
}

async function setup(t: Test) {
  const node = await makeNetns(t, 'node');
  const dataDir = tempDir(t, 'cnits-bridge-');
  return { node, dataDir };
}

t.test('two pods on one bridge: ping, CHECK, DEL ×2', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await setup(t);
  const [podA, podB] = await Promise.all([makeNetns(t, 'pod'), makeNetns(t, 'pod')]);
  const list = conflist(dataDir);
  const a = attachment(list, { containerId: 'smoke-a', netns: podA.path, ifname: 'eth0' }, { nodeNetns: node.name });
  const b = attachment(list, { containerId: 'smoke-b', netns: podB.path, ifname: 'eth0' }, { nodeNetns: node.name });
  const ra = await a.add();
  const rb = await b.add();

  t.same(ra.interfaces.map((i: { name: string }) => i.name).slice(0, 1), [BRIDGE], 'the bridge is interface 0');
  t.match(ra.interfaces[1], { name: /^veth[0-9a-f]{8}$/ }, 'the host end is veth + 8 hex digits');
  t.match(ra.interfaces[2], { name: 'eth0', sandbox: podA.path });
  t.match(ra.ips, [
    { gateway: V4.gateway, interface: 2 },
    { gateway: V6.gateway, interface: 2 },
  ]);
  t.same((await veths(node.name)).sort(), [ra.interfaces[1].name, rb.interfaces[1].name].sort(), 'two host veths in the node netns');

  const targets: [string, TestNetns, string][] = [
    ['A → B IPv4', podA, addrs(rb).v4 ?? ''],
    ['A → B IPv6', podA, addrs(rb).v6 ?? ''],
    ['B → A IPv4', podB, addrs(ra).v4 ?? ''],
    ['B → A IPv6', podB, addrs(ra).v6 ?? ''],
    ['A → gateway IPv4', podA, V4.gateway],
    ['A → gateway IPv6', podA, V6.gateway],
  ];
  for (const [what, from, to] of targets) t.ok(await pings(from.name, to), `${what} (${to})`);

  await t.resolves(a.check(), 'CHECK passes for A');
  await t.resolves(b.check(), 'CHECK passes for B');

  await a.del();
  await b.del();
  t.same(await veths(node.name), [], 'no veth left in the node netns');
  t.same(await veths(podA.name), [], 'no veth left in pod A');
  t.same(ipFiles(dataDir, 'smoke'), [], 'no address allocated');
  await t.resolves(a.del(), 'a second DEL succeeds');
  await t.resolves(b.del(), 'a second DEL succeeds');
});

t.test('L2 mode (ipam {}): interfaces only, container side up, CHECK passes', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await setup(t);
  const pod = await makeNetns(t, 'pod');
  const a = attachment(conflist(dataDir, {}), { containerId: 'smoke-l2', netns: pod.path, ifname: 'eth0' }, { nodeNetns: node.name });
  const r = await a.add();
  t.equal(r.interfaces.length, 3);
  t.notOk('ips' in r, 'no IPs in L2 mode');
  const [eth0] = await ipJson<{ operstate: string; addr_info: { scope: string }[] }[]>(pod.name, ['addr', 'show', 'eth0']);
  t.equal(eth0?.operstate, 'UP', 'the container side is up');
  t.same(
    eth0?.addr_info.filter((x) => x.scope === 'global'),
    [],
    'and has no global address',
  );
  await t.resolves(a.check(), 'CHECK passes without an IPAM to ask');
  await a.del();
  t.same(await veths(node.name), []);
});

t.test('an ADD whose CNI_IFNAME exists in the pod fails and leaves nothing', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await setup(t);
  const pod = await makeNetns(t, 'pod');
  await run('ip', ['-n', pod.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'other0']);
  const a = attachment(conflist(dataDir), { containerId: 'smoke-dup', netns: pod.path, ifname: 'eth0' }, { nodeNetns: node.name });
  await t.rejects(a.add(), /container veth name \("eth0"\) peer provided \("veth[0-9a-f]{8}"\) already exists/);
  t.same(ipFiles(dataDir, 'smoke'), [], 'no address allocated');
  t.same(await veths(node.name), [], 'no veth in the node netns');
  t.same((await veths(pod.name)).sort(), ['eth0', 'other0'], 'the pod keeps its own interfaces');
});
