// The built ipvlan (+ host-local) in a node netns whose eth0 is the master, its peer in a lan
// netns playing the network: every spec version (ADD → state → CHECK → DEL → nothing left → DEL
// again), l2 and l3 pods reaching each other and the lan, chained with the master and the
// addresses from prevResult, CHECK noticing a changed MTU or mode, refused input and a failed
// ADD leaving nothing, GC and STATUS. Needs a kernel with ipvlan: in e2e/kernel-lab.txt.
import t from 'tap';
import { gc, status } from '../helpers/conflist.ts';
import { impl } from '../helpers/impl.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { execPlugin } from '../helpers/plugins.ts';
import { LAN, lanAttachment, lanIpam, linksBesideLo, makeLan, podEth0, type LanWorld } from '../helpers/lan.ts';
import { makePod, pings } from '../helpers/topology.ts';
import { allVersionsRan, hasCheck, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';
import { ipJson, run } from '../../test-support/sh.ts';

const skip = impl.lacks('kernel-ipvlan');
const NET = 'ipvlannet';
const addrOf = (cidr: string) => cidr.slice(0, cidr.indexOf('/'));

function ipvlan(w: LanWorld, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'ipvlan', master: LAN.master, ipam: lanIpam(w.dataDir), ...extra };
}

async function masterMac(w: LanWorld): Promise<string | undefined> {
  const [m] = await ipJson<{ address: string }[]>(w.node.name, ['link', 'show', 'dev', LAN.master]);
  return m?.address;
}

const done: string[] = [];
t.test('every spec version: ADD, an l2 ipvlan on the master, CHECK, DEL leaves nothing, DEL again', { skip }, async (t) => {
  for (const v of SPEC_VERSIONS) {
    const w = await makeLan(t);
    const pod = await makePod(t);
    const att = lanAttachment(NET, ipvlan(w), { node: w.node, pod, id: `iv-${v}`, cniVersion: v });
    const r = await att.add();
    const ip = isPre030(v) ? r.ip4.ip : r.ips[0].address;
    t.match(ip, /^10\.61\.0\.\d+\/24$/, `${v}: an address from the range`);
    const eth0 = await podEth0(pod);
    t.equal(eth0?.linkinfo?.info_kind, 'ipvlan', `${v}: eth0 is an ipvlan`);
    t.equal(eth0?.linkinfo?.info_data?.mode, 'l2', `${v}: in l2 mode, the default`);
    t.equal(eth0?.address, await masterMac(w), `${v}: with the master's MAC`);
    t.same(
      eth0?.addr_info?.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`),
      [ip],
      `${v}: the address on eth0`,
    );
    if (!isPre030(v)) t.match(r.interfaces, [{ name: 'eth0', mac: eth0?.address, sandbox: pod.path }], `${v}: the result names eth0, its MAC and sandbox`);
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
allVersionsRan(t, done, skip);

t.test('l2 and l3: pods on one master reach each other and the lan; not a deleted pod', { skip }, async (t) => {
  for (const mode of ['l2', 'l3'] as const) {
    const w = await makeLan(t);
    const [podA, podB] = [await makePod(t), await makePod(t)];
    // l3 pods have a subnet of their own, routed by the node (the lan routes it to the node)
    const ipam = mode === 'l3' ? { ...lanIpam(w.dataDir, LAN.l3Subnet), routes: [{ dst: '0.0.0.0/0' }] } : lanIpam(w.dataDir);
    const a = lanAttachment(NET, ipvlan(w, { mode, ipam }), { node: w.node, pod: podA, id: `iv-${mode}-a` });
    const b = lanAttachment(NET, ipvlan(w, { mode, ipam }), { node: w.node, pod: podB, id: `iv-${mode}-b` });
    const [ra, rb] = [await a.add(), await b.add()];
    t.teardown(() => Promise.all([a.del(), b.del()]));
    t.equal((await podEth0(podA))?.linkinfo?.info_data?.mode, mode, `${mode}: the mode asked for`);
    const [ipA, ipB] = [addrOf(ra.ips[0].address), addrOf(rb.ips[0].address)];
    t.ok(await pings(podA.name, ipB), `${mode}: pod A reaches pod B`);
    t.ok(await pings(podA.name, LAN.hostAddr), `${mode}: pod A reaches the lan machine`);
    t.ok(await pings(w.lan.name, ipB), `${mode}: the lan machine reaches pod B`);
    await a.del();
    t.notOk(await pings(podB.name, ipA), `${mode}: after DEL, pod A's address answers no more (control)`);
  }
});

t.test('chained: the master and the addresses from prevResult, when the config has neither', { skip }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  // what a plugin before it that set up the node's eth0 would report
  const prevResult = {
    cniVersion: '1.0.0',
    interfaces: [{ name: LAN.master }],
    ips: [{ interface: 0, address: '10.61.0.77/24' }],
    routes: [{ dst: '10.63.0.0/16', gw: LAN.hostAddr }],
  };
  const a = { containerId: 'iv-chain', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name };
  const conf = { cniVersion: '1.0.0', name: NET, type: 'ipvlan', prevResult };
  const r = await execPlugin('ipvlan', { command: 'ADD', ...a }, conf);
  t.equal(r.code, 0, `ADD succeeds ${r.stdout}`);
  t.match(r.json, { interfaces: [{ name: 'eth0', sandbox: pod.path }], ips: [{ interface: 0, address: '10.61.0.77/24' }], routes: [{ dst: '10.63.0.0/16' }] });
  t.equal(r.json?.interfaces?.length, 1, "prevResult's interfaces are replaced by the ipvlan");
  t.equal((await podEth0(pod))?.address, await masterMac(w), "the master is prevResult's eth0");
  t.ok(await pings(pod.name, LAN.hostAddr), "with prevResult's address, the pod reaches the lan");
  const check = await execPlugin('ipvlan', { command: 'CHECK', ...a }, { ...conf, prevResult: r.json });
  t.equal(check.code, 0, `CHECK with its own result passes ${check.stdout}`);
  const two = await execPlugin(
    'ipvlan',
    { command: 'ADD', ...a, containerId: 'iv-chain2' },
    { ...conf, prevResult: { ...prevResult, interfaces: [{ name: 'a' }, { name: 'b' }] } },
  );
  t.match(two.json, { code: 7, msg: 'chained master failure. PrevResult lacks a single named interface' }, 'two interfaces in prevResult: no master to take');
  t.equal((await execPlugin('ipvlan', { command: 'DEL', ...a }, conf)).code, 0, 'DEL');
  t.same(await linksBesideLo(pod), [], 'nothing left in the pod');
});

t.test('CHECK notices a changed MTU or mode', { skip }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const att = lanAttachment(NET, ipvlan(w, { mtu: 1400 }), { node: w.node, pod, id: 'iv-check' });
  await att.add();
  t.teardown(() => att.del());
  await t.resolves(att.check(), 'CHECK passes as ADD left it');
  await run('ip', ['-n', pod.name, 'link', 'set', 'eth0', 'mtu', '1300']);
  await t.rejects(att.check(), /Container IPVlan MTU 1300 does not match expected value: 1400/, 'a changed MTU');
  await run('ip', ['-n', pod.name, 'link', 'set', 'eth0', 'mtu', '1400']);
  await t.resolves(att.check(), 'CHECK passes again (control)');
  await run('ip', ['-n', pod.name, 'link', 'set', 'eth0', 'type', 'ipvlan', 'mode', 'l3']);
  await t.rejects(att.check(), /Container IPVlan mode l3 does not match expected value: l2/, 'a changed mode');
});

t.test('refused input and a failed ADD: code and message, nothing made', { skip }, async (t) => {
  const w = await makeLan(t, { masterMtu: 1500 });
  const pod = await makePod(t);
  const cases: [string, Record<string, unknown>, number, RegExp | string][] = [
    ['unknown mode', { mode: 'l4' }, 7, 'unknown ipvlan mode: "l4"'],
    ['mtu above the master', { mtu: 9000 }, 7, 'invalid MTU 9000, must be [0, master MTU(1500)]'],
    ['no such master', { master: 'eth9' }, 7, 'failed to lookup master "eth9": Link not found'],
    ['no IPAM and no prevResult', { ipam: undefined }, 7, 'no plugin name provided'],
    ['an IPAM that fails (it runs before the link is made)', { ipam: { type: 'no-such-ipam' } }, 999, /no-such-ipam/],
  ];
  for (const [what, extra, code, msg] of cases) {
    const r = await execPlugin(
      'ipvlan',
      { command: 'ADD', containerId: 'iv-bad', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name },
      { cniVersion: '1.0.0', name: NET, ...ipvlan(w, extra) },
    );
    t.equal(r.code, 1, `${what}: exit 1`);
    t.match(r.json, { code, msg }, `${what}: code ${code}`);
    t.same(await linksBesideLo(pod), [], `${what}: no link in the pod`);
    t.same(ipFiles(w.dataDir, NET), [], `${what}: no allocation`);
  }
});

t.test('DEL of a gone netns succeeds and releases the address; GC and STATUS', { skip }, async (t) => {
  const w = await makeLan(t);
  const [gone, keep] = [await makePod(t), await makePod(t)];
  const list = { cniVersion: '1.1.0', name: NET, plugins: [ipvlan(w)] };
  const g = lanAttachment(NET, ipvlan(w), { node: w.node, pod: gone, id: 'iv-gone', cniVersion: '1.1.0' });
  const k = lanAttachment(NET, ipvlan(w), { node: w.node, pod: keep, id: 'iv-keep', cniVersion: '1.1.0' });
  await g.add();
  await k.add();
  t.teardown(() => k.del());
  await run('ip', ['netns', 'del', gone.name]);
  await gc(list, [{ containerID: 'iv-keep', ifname: 'eth0' }], { nodeNetns: w.node.name });
  t.equal(ipFiles(w.dataDir, NET).length, 1, "GC released the gone pod's address, kept the other");
  await t.resolves(g.del(), 'DEL of the gone netns succeeds');
  await t.resolves(status(list, { nodeNetns: w.node.name }), 'STATUS succeeds');
});

t.test('DEL needs no master: none configured, no prevResult, a node without a default route', { skip }, async (t) => {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const a = { containerId: 'iv-nomaster', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name };
  const add = await execPlugin('ipvlan', { command: 'ADD', ...a }, { cniVersion: '1.0.0', name: NET, ...ipvlan(w) });
  t.equal(add.code, 0, 'ADD on eth0');
  await run('ip', ['-n', w.node.name, 'route', 'del', 'default']);
  const del = await execPlugin('ipvlan', { command: 'DEL', ...a }, { cniVersion: '1.0.0', name: NET, ...ipvlan(w, { master: undefined }) });
  t.equal(del.code, 0, `DEL succeeds ${del.stdout}`);
  t.same(await linksBesideLo(pod), [], 'the ipvlan is gone');
  t.same(ipFiles(w.dataDir, NET), [], 'the address is released');
});
