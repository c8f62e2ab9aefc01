// The built macvlan (+ host-local) in a node netns whose eth0 is the master, its peer in a lan
// netns playing the network: every spec version (ADD → state → CHECK → DEL → nothing left → DEL
// again), traffic in bridge mode and none between pods in private mode, the L2 mode without
// IPAM, each option (default master, linkInContainer, mac from each source, mtu, bcqueuelen),
// CHECK noticing a changed MTU or mode, refused input leaving nothing, GC and STATUS.
import t from 'tap';
import { gc, status } from '../helpers/conflist.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { execPlugin } from '../helpers/plugins.ts';
import { LAN, lanAttachment, lanIpam, linksBesideLo, makeLan, podEth0, type LanWorld } from '../helpers/lan.ts';
import { makePod, pings } from '../helpers/topology.ts';
import { allVersionsRan, hasCheck, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';
import type { TestNetns } from '../helpers/netns.ts';
import { ipJson, needsRoot, run } from '../../test-support/sh.ts';

const NET = 'macvlannet';
const addrOf = (cidr: string) => cidr.slice(0, cidr.indexOf('/'));

function macvlan(w: LanWorld, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'macvlan', master: LAN.master, ipam: lanIpam(w.dataDir), ...extra };
}

/** The index of `dev` in the node, and the parent index the pod's eth0 reports. */
async function parentOf(w: LanWorld, pod: TestNetns): Promise<{ master: number; parent: number | undefined }> {
  const [m] = await ipJson<{ ifindex: number }[]>(w.node.name, ['link', 'show', 'dev', LAN.master]);
  const [p] = await ipJson<{ link_index?: number }[]>(pod.name, ['link', 'show', 'dev', 'eth0']);
  return { master: m?.ifindex ?? -1, parent: p?.link_index };
}

const done: string[] = [];
t.test('every spec version: ADD, a bridge-mode macvlan on the master, CHECK, DEL leaves nothing, DEL again', { skip: needsRoot }, async (t) => {
  for (const v of SPEC_VERSIONS) {
    const w = await makeLan(t);
    const pod = await makePod(t);
    const att = lanAttachment(NET, macvlan(w), { node: w.node, pod, id: `mv-${v}`, cniVersion: v });
    const r = await att.add();
    const ip = isPre030(v) ? r.ip4.ip : r.ips[0].address;
    t.match(ip, /^10\.61\.0\.\d+\/24$/, `${v}: an address from the range`);
    const eth0 = await podEth0(pod);
    t.equal(eth0?.linkinfo?.info_kind, 'macvlan', `${v}: eth0 is a macvlan`);
    t.equal(eth0?.linkinfo?.info_data?.mode, 'bridge', `${v}: in bridge mode, the default`);
    t.same(
      eth0?.addr_info?.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`),
      [ip],
      `${v}: the address on eth0`,
    );
    const { master, parent } = await parentOf(w, pod);
    t.equal(parent, master, `${v}: its parent is the node's eth0`);
    if (!isPre030(v)) t.match(r.interfaces, [{ name: 'eth0', mac: eth0?.address, sandbox: pod.path }], `${v}: the result names eth0, its MAC and sandbox`);
    if (!isPre030(v)) t.same(r.ips[0].interface, 0, `${v}: the address is on interface 0`);
    t.ok(await pings(pod.name, LAN.hostAddr), `${v}: the pod reaches the lan machine`);
    if (hasCheck(v)) await t.resolves(att.check(), `${v}: CHECK passes`);
    await att.del();
    t.same(await linksBesideLo(pod), [], `${v}: no link left in the pod`);
    t.same(ipFiles(w.dataDir, NET), [], `${v}: no allocation left`);
    t.same(await linksBesideLo(w.node), [LAN.master], `${v}: the master alone in the node`);
    await t.resolves(att.del(), `${v}: a second DEL succeeds`);
    done.push(v);
  }
});
allVersionsRan(t, done, needsRoot);

t.test('bridge mode: pods on one master reach each other and the lan; private mode: only the lan', { skip: needsRoot }, async (t) => {
  for (const mode of ['bridge', 'private'] as const) {
    const w = await makeLan(t);
    const [podA, podB] = [await makePod(t), await makePod(t)];
    const a = lanAttachment(NET, macvlan(w, { mode }), { node: w.node, pod: podA, id: `mv-${mode}-a` });
    const b = lanAttachment(NET, macvlan(w, { mode }), { node: w.node, pod: podB, id: `mv-${mode}-b` });
    const [ra, rb] = [await a.add(), await b.add()];
    t.teardown(() => Promise.all([a.del(), b.del()]));
    t.equal((await podEth0(podA))?.linkinfo?.info_data?.mode, mode, `${mode}: the mode asked for`);
    const [ipA, ipB] = [addrOf(ra.ips[0].address), addrOf(rb.ips[0].address)];
    t.ok(await pings(podA.name, LAN.hostAddr), `${mode}: pod A reaches the lan machine`);
    t.ok(await pings(podB.name, LAN.hostAddr), `${mode}: pod B reaches the lan machine`);
    t.ok(await pings(w.lan.name, ipA), `${mode}: the lan machine reaches pod A`);
    if (mode === 'bridge') t.ok(await pings(podA.name, ipB), 'bridge: pod A reaches pod B');
    else t.notOk(await pings(podA.name, ipB), 'private: pod A does not reach pod B (pod B answers the lan, above)');
  }
});

t.test('without IPAM: eth0 is up with no address, the result has none', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const att = lanAttachment(NET, { type: 'macvlan', master: LAN.master }, { node: w.node, pod, id: 'mv-l2' });
  const r = await att.add();
  const eth0 = await podEth0(pod);
  t.ok(eth0?.flags.includes('UP'), 'eth0 is up');
  t.same(
    eth0?.addr_info?.filter((a) => a.family === 'inet'),
    [],
    'no IPv4 address',
  );
  t.notOk('ips' in r, 'no ips in the result');
  t.match(r.interfaces, [{ name: 'eth0', sandbox: pod.path }]);
  // L2 works: an address the test puts there reaches the lan machine
  await run('ip', ['-n', pod.name, 'addr', 'add', '10.61.0.200/24', 'dev', 'eth0']);
  t.ok(await pings(pod.name, LAN.hostAddr), 'with an address of its own, the pod reaches the lan');
  await t.resolves(att.check(), 'CHECK passes');
  await att.del();
  t.same(await linksBesideLo(pod), [], 'nothing left in the pod');
});

t.test('no master: the interface of the node default route; linkInContainer: a master in the pod', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const att = lanAttachment(NET, { type: 'macvlan', ipam: lanIpam(w.dataDir) }, { node: w.node, pod, id: 'mv-default' });
  await att.add();
  const { master, parent } = await parentOf(w, pod);
  t.equal(parent, master, "the node's default-route interface eth0 is the master");
  t.ok(await pings(pod.name, LAN.hostAddr), 'and the pod reaches the lan through it');
  await att.del();

  // A master that lives in the pod (a veth whose other end is in the lan)
  const pod2 = await makePod(t);
  await run('ip', ['-n', pod2.name, 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'lan1', 'netns', w.lan.name]);
  await run('ip', ['-n', w.lan.name, 'link', 'add', 'lanbr', 'type', 'bridge']);
  for (const dev of ['lan1', LAN.lanIf]) await run('ip', ['-n', w.lan.name, 'link', 'set', dev, 'master', 'lanbr']);
  await run('ip', ['-n', w.lan.name, 'addr', 'flush', 'dev', LAN.lanIf]);
  await run('ip', ['-n', w.lan.name, 'addr', 'add', `${LAN.hostAddr}/24`, 'dev', 'lanbr']);
  for (const dev of ['lan1', 'lanbr']) await run('ip', ['-n', w.lan.name, 'link', 'set', dev, 'up']);
  await run('ip', ['-n', pod2.name, 'link', 'set', 'up0', 'up']);
  const inPod = lanAttachment(
    NET,
    { type: 'macvlan', master: 'up0', linkInContainer: true, ipam: lanIpam(w.dataDir) },
    { node: w.node, pod: pod2, id: 'mv-inpod' },
  );
  await inPod.add();
  const [eth0] = await ipJson<{ link?: string }[]>(pod2.name, ['link', 'show', 'dev', 'eth0']);
  t.equal(eth0?.link, 'up0', 'linkInContainer: the parent is up0, in the pod');
  t.ok(await pings(pod2.name, LAN.hostAddr), 'the pod reaches the lan through its own master');
  await t.resolves(inPod.check(), 'CHECK finds the master in the pod');
  await inPod.del();
  t.same(await linksBesideLo(pod2), ['up0'], 'DEL leaves the pod its own master');
});

t.test('mac from the config, CNI_ARGS and runtimeConfig (the later wins); mtu; bcqueuelen', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const run1 = (stdin: object, args = '', command: 'ADD' | 'DEL' = 'ADD') =>
    execPlugin(
      'macvlan',
      { command, containerId: 'mv-mac', netns: pod.path, ifname: 'eth0', args, nodeNetns: w.node.name },
      { cniVersion: '1.0.0', name: NET, ...stdin },
    );
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['the config', { mac: '02:00:00:00:00:01' }, '', '02:00:00:00:00:01'],
    ['CNI_ARGS over the config', { mac: '02:00:00:00:00:01' }, 'MAC=02:00:00:00:00:02', '02:00:00:00:00:02'],
    ['runtimeConfig over CNI_ARGS', { mac: '02:00:00:00:00:01', runtimeConfig: { mac: '02:00:00:00:00:03' } }, 'MAC=02:00:00:00:00:02', '02:00:00:00:00:03'],
  ];
  for (const [what, extra, args, want] of cases) {
    const conf = { type: 'macvlan', master: LAN.master, ...extra };
    const r = await run1(conf, args);
    t.equal(r.code, 0, `${what}: ADD succeeds ${r.stdout}`);
    t.equal((await podEth0(pod))?.address, want, `${what}: eth0 has ${want}`);
    t.equal(r.json?.interfaces?.[0]?.mac, want, `${what}: and the result says so`);
    t.equal((await run1(conf, args, 'DEL')).code, 0, `${what}: DEL`);
  }
  const conf = { type: 'macvlan', master: LAN.master, mtu: 1400, bcqueuelen: 100 };
  t.equal((await run1(conf)).code, 0, 'ADD with mtu and bcqueuelen');
  const eth0 = await podEth0(pod);
  t.equal(eth0?.mtu, 1400, 'mtu 1400');
  t.equal(eth0?.linkinfo?.info_data?.bcqueuelen, 100, 'bcqueuelen 100');
  t.equal((await run1(conf, '', 'DEL')).code, 0, 'DEL');
  t.same(await linksBesideLo(pod), [], 'nothing left in the pod');
});

t.test('CHECK notices a changed MTU or mode, and a config asking for another mode', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const att = lanAttachment(NET, macvlan(w, { mtu: 1400 }), { node: w.node, pod, id: 'mv-check' });
  const r = await att.add();
  t.teardown(() => att.del());
  await t.resolves(att.check(), 'CHECK passes as ADD left it');
  await run('ip', ['-n', pod.name, 'link', 'set', 'eth0', 'mtu', '1300']);
  await t.rejects(att.check(), /container macvlan MTU 1300 does not match expected value: 1400/, 'a changed MTU');
  await run('ip', ['-n', pod.name, 'link', 'set', 'eth0', 'mtu', '1400']);
  await t.resolves(att.check(), 'CHECK passes again (control)');
  await run('ip', ['-n', pod.name, 'link', 'set', 'eth0', 'type', 'macvlan', 'mode', 'private']);
  await t.rejects(att.check(), /container macvlan mode private does not match expected value: bridge/, 'a changed mode');
  const check = execPlugin(
    'macvlan',
    { command: 'CHECK', containerId: 'mv-check', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name },
    { cniVersion: '1.0.0', name: NET, ...macvlan(w, { mtu: 1400, mode: 'vepa' }), prevResult: r },
  );
  t.match((await check).json, { code: 999, msg: 'container macvlan mode private does not match expected value: vepa' }, 'a config of another mode');
});

t.test('refused input: code and message, nothing made', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t, { masterMtu: 1500 });
  const pod = await makePod(t);
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['unknown mode', { mode: 'switch' }, 7, 'unknown macvlan mode: "switch"'],
    ['mtu above the master', { mtu: 9000 }, 7, 'invalid MTU 9000, must be [0, master MTU(1500)]'],
    ['negative mtu', { mtu: -1 }, 7, 'invalid MTU -1, must be [0, master MTU(1500)]'],
    ['no such master', { master: 'eth9' }, 7, 'failed to lookup master "eth9": Link not found'],
    ['a multicast mac', { mac: '01:00:5e:00:00:01' }, 7, 'MAC address "01:00:5e:00:00:01" is not a unicast address'],
    ['a malformed mac', { runtimeConfig: { mac: 'xx' } }, 7, 'invalid args xx for MAC addr: address xx: invalid MAC address'],
    ['mtu of a wrong type', { mtu: '1400' }, 7, ''],
  ];
  for (const [what, extra, code, msg] of cases) {
    const r = await execPlugin(
      'macvlan',
      { command: 'ADD', containerId: 'mv-bad', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name },
      { cniVersion: '1.0.0', name: NET, ...macvlan(w, extra) },
    );
    t.equal(r.code, 1, `${what}: exit 1`);
    t.match(r.json, { code, ...(msg && { msg }) }, `${what}: code ${code} ${msg}`);
    t.same(await linksBesideLo(pod), [], `${what}: no link in the pod`);
    t.same(ipFiles(w.dataDir, NET), [], `${what}: no allocation`);
  }
});

t.test('a failing ADD is undone: the IPAM fails after the link was made, or the name is taken', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const noIpam = lanAttachment(NET, { type: 'macvlan', master: LAN.master, ipam: { type: 'no-such-ipam' } }, { node: w.node, pod, id: 'mv-undo' });
  await t.rejects(noIpam.add(), /no-such-ipam/);
  t.same(await linksBesideLo(pod), [], 'the macvlan is gone again');
  await run('ip', ['-n', pod.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'taken0']);
  const taken = lanAttachment(NET, macvlan(w), { node: w.node, pod, id: 'mv-undo' });
  await t.rejects(taken.add(), /failed to rename macvlan to "eth0"/);
  t.same((await linksBesideLo(pod)).sort(), ['eth0', 'taken0'], 'only the links that were there');
  t.same(ipFiles(w.dataDir, NET), [], 'no allocation');
  t.same(await linksBesideLo(w.node), [LAN.master], 'nothing in the node');
});

t.test('DEL of a gone netns succeeds and releases the address; GC and STATUS', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t);
  const [gone, keep] = [await makePod(t), await makePod(t)];
  const list = { cniVersion: '1.1.0', name: NET, plugins: [macvlan(w)] };
  const g = lanAttachment(NET, macvlan(w), { node: w.node, pod: gone, id: 'mv-gone', cniVersion: '1.1.0' });
  const k = lanAttachment(NET, macvlan(w), { node: w.node, pod: keep, id: 'mv-keep', cniVersion: '1.1.0' });
  await g.add();
  await k.add();
  t.teardown(() => k.del());
  await run('ip', ['netns', 'del', gone.name]);
  await gc(list, [{ containerID: 'mv-keep', ifname: 'eth0' }], { nodeNetns: w.node.name });
  t.equal(ipFiles(w.dataDir, NET).length, 1, "GC released the gone pod's address, kept the other");
  await t.resolves(g.del(), 'DEL of the gone netns succeeds');
  await t.resolves(status(list, { nodeNetns: w.node.name }), 'STATUS succeeds');
});

t.test('DEL removes the link even when the IPAM DEL fails, and reports that failure', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const a = { containerId: 'mv-ipamfail', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name };
  const add = await execPlugin('macvlan', { command: 'ADD', ...a }, { cniVersion: '1.0.0', name: NET, ...macvlan(w) });
  t.equal(add.code, 0, 'ADD');
  t.teardown(() => execPlugin('macvlan', { command: 'DEL', ...a }, { cniVersion: '1.0.0', name: NET, ...macvlan(w) }));
  const del = await execPlugin('macvlan', { command: 'DEL', ...a }, { cniVersion: '1.0.0', name: NET, ...macvlan(w, { ipam: { type: 'no-such-ipam' } }) });
  t.match(del.json, { code: 999, msg: /no-such-ipam/ }, 'the IPAM failure is reported');
  t.same(await linksBesideLo(pod), [], 'and the macvlan is gone anyway');
});
