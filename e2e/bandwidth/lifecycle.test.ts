// CHECK against live state, DEL (twice, after the veth or the netns is gone, ADD → DEL → ADD),
// GC of the ifbs of this network only, STATUS: bridge + host-local → bandwidth, as built.
import { createHash } from 'node:crypto';
import t from 'tap';
import { bandwidthConflist, BW_NETWORK, ifbsIn, makeBwPod, makeBwWorld, qdiscKinds, tbfOf } from '../helpers/bandwidth.ts';
import { gc, status } from '../helpers/conflist.ts';
import { execPlugin, GO_BIN } from '../helpers/plugins.ts';
import { needsRoot, nsRun, run } from '../../test-support/sh.ts';

const SHAPE = { ingressRate: 1_000_000, ingressBurst: 80_000, egressRate: 1_000_000, egressBurst: 80_000 };
const ifbOf = (network: string, id: string) =>
  `bwp${createHash('sha512')
    .update(network + id)
    .digest('hex')
    .slice(0, 12)}`;

t.test('CHECK compares the live tbf with the config', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir, SHAPE, '1.1.0'));
  const r = await pod.att.add();
  t.teardown(() => pod.att.del());
  const hostVeth = r.interfaces[1].name as string;
  await t.resolves(pod.att.check(), 'CHECK passes right after ADD');

  await nsRun(w.node.name, 'tc', ['qdisc', 'change', 'dev', hostVeth, 'root', 'handle', '1:', 'tbf', 'rate', '2mbit', 'burst', '10000', 'limit', '13125']);
  await t.rejects(pod.att.check(), /Rate doesn't match/, 'a changed rate fails CHECK');
  await nsRun(w.node.name, 'tc', ['qdisc', 'change', 'dev', hostVeth, 'root', 'handle', '1:', 'tbf', 'rate', '125000bps', 'burst', '10000', 'limit', '9999']);
  await t.rejects(pod.att.check(), /Limit doesn't match/, 'a changed limit fails CHECK');
  await nsRun(w.node.name, 'tc', ['qdisc', 'change', 'dev', hostVeth, 'root', 'handle', '1:', 'tbf', 'rate', '125000bps', 'burst', '20000', 'limit', '13125']);
  await t.rejects(pod.att.check(), /Buffer doesn't match/, 'a changed bucket fails CHECK');
  await nsRun(w.node.name, 'tc', ['qdisc', 'del', 'dev', hostVeth, 'root']);
  await t.rejects(pod.att.check(), /Failed to find qdisc/, 'no tbf fails CHECK');
  await nsRun(w.node.name, 'tc', ['qdisc', 'add', 'dev', hostVeth, 'root', 'handle', '1:', 'tbf', 'rate', '125000bps', 'burst', '10000', 'limit', '13125']);
  await t.resolves(pod.att.check(), 'the same tbf put back by hand passes');
  await run('ip', ['-n', w.node.name, 'link', 'del', ifbOf(BW_NETWORK, pod.id)]);
  await t.rejects(pod.att.check(), /get ifb device/, 'a missing ifb fails CHECK');
});

t.test('CHECK with no bandwidth configured passes (the Go 1.1.1 plugin panics)', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir));
  const r = await pod.att.add();
  t.teardown(() => pod.att.del());
  t.equal(r.interfaces.length, 3, 'prevResult passed through: no ifb');
  t.same(await qdiscKinds(w.node.name, r.interfaces[1].name), ['noqueue'], 'and no qdisc');
  await t.resolves(pod.att.check());
});

t.test('DEL: twice; after the veth is gone; after the netns is gone', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const list = bandwidthConflist(w.dataDir, SHAPE);
  const a = await makeBwPod(t, w, list);
  await a.att.add();
  await a.att.del();
  t.same(await ifbsIn(w.node.name), [], 'no ifb after DEL');
  await t.resolves(a.att.del(), 'a second DEL succeeds');

  const b = await makeBwPod(t, w, list);
  await b.att.add();
  await run('ip', ['-n', b.ns.name, 'link', 'del', 'eth0']);
  await t.resolves(b.att.del(), 'DEL after the veth is gone');
  t.same(await ifbsIn(w.node.name), [], 'the ifb is removed anyway');

  const c = await makeBwPod(t, w, list);
  await c.att.add();
  await run('ip', ['netns', 'del', c.ns.name]);
  await t.resolves(c.att.del(), 'DEL after the netns is gone');
  t.same(await ifbsIn(w.node.name), [], 'the ifb is removed anyway');
  await t.resolves(c.att.del(), 'and again');
});

t.test('bandwidth DEL removes its qdiscs from the host veth, so ADD → DEL → ADD works on the same veth', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir));
  const prevResult = await pod.att.add(); // bridge only: bandwidth has nothing to do yet
  t.teardown(() => pod.att.del());
  const hostVeth = prevResult.interfaces[1].name as string;
  const conf = { cniVersion: '1.0.0', name: BW_NETWORK, type: 'bandwidth', ...SHAPE, prevResult };
  const env = { containerId: pod.id, netns: pod.ns.path, ifname: 'eth0', nodeNetns: w.node.name };
  const bw = (command: 'ADD' | 'DEL', dir?: string) => execPlugin('bandwidth', { command, ...env }, conf, dir);

  for (const round of [1, 2]) {
    const add = await bw('ADD');
    t.equal(add.code, 0, `ADD ${round}: ${add.stdout.slice(0, 200)}`);
    t.ok(await tbfOf(w.node.name, hostVeth), `ADD ${round}: tbf on the host veth`);
    const del = await bw('DEL');
    t.equal(del.code, 0, `DEL ${round}`);
    t.same(await qdiscKinds(w.node.name, hostVeth), ['noqueue'], `DEL ${round}: no tbf and no ingress qdisc left on the veth`);
    t.same(await ifbsIn(w.node.name), [], `DEL ${round}: no ifb`);
  }

  // another tool's root qdisc on the veth is not ours to delete: neither another kind with our
  // handle, nor a tbf with another handle
  for (const other of [
    ['handle', '1:', 'htb'],
    ['handle', '2:', 'tbf', 'rate', '1mbit', 'burst', '10000', 'limit', '20000'],
  ]) {
    await nsRun(w.node.name, 'tc', ['qdisc', 'add', 'dev', hostVeth, 'root', ...other]);
    t.equal((await bw('DEL')).code, 0, `DEL with a foreign root qdisc (${other.slice(0, 3).join(' ')})`);
    t.same(await qdiscKinds(w.node.name, hostVeth), [other[2]], 'is left in place');
    await nsRun(w.node.name, 'tc', ['qdisc', 'del', 'dev', hostVeth, 'root']);
  }

  // control: the reference leaves the qdiscs, and its own second ADD then fails
  const goAdd = await bw('ADD', GO_BIN);
  t.equal(goAdd.code, 0, 'Go ADD');
  t.equal((await bw('DEL', GO_BIN)).code, 0, 'Go DEL');
  t.same((await qdiscKinds(w.node.name, hostVeth))?.sort(), ['ingress', 'tbf'], 'the Go DEL left tbf and ingress on the veth');
  const again = await bw('ADD', GO_BIN);
  t.not(again.code, 0, `so its second ADD fails: ${again.json?.msg}`);
  t.equal((await bw('DEL')).code, 0, 'our DEL cleans up after it');
  t.same(await qdiscKinds(w.node.name, hostVeth), ['noqueue']);
});

t.test('GC removes the ifbs of this network whose container is not valid, and nothing else', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const list = bandwidthConflist(w.dataDir, SHAPE, '1.1.0');
  const [a, b] = [await makeBwPod(t, w, list), await makeBwPod(t, w, list)];
  await a.att.add();
  await b.att.add();
  const other = { ...list, name: 'othernet' };
  const c = await makeBwPod(t, w, other);
  await c.att.add();
  t.teardown(async () => {
    for (const p of [a, b, c]) await p.att.del().catch(() => undefined);
  });
  // an ifb nobody labelled (as the Go plugin makes them)
  await run('ip', ['-n', w.node.name, 'link', 'add', 'bwp000000000000', 'type', 'ifb']);

  const opts = { nodeNetns: w.node.name };
  await gc(list, [{ containerID: a.id, ifname: 'eth0' }], opts);
  t.same(
    (await ifbsIn(w.node.name)).sort(),
    [ifbOf(BW_NETWORK, a.id), ifbOf('othernet', c.id), 'bwp000000000000'].sort(),
    "B's ifb is gone; A's (valid), the other network's and the unlabelled one stay",
  );
  await status(list, opts);
  t.pass('STATUS succeeds');
});

t.test('a failed ADD undoes what it made and nothing else', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir));
  const prevResult = await pod.att.add();
  t.teardown(() => pod.att.del());
  const hostVeth = prevResult.interfaces[1].name as string;
  // someone else's link already has the ifb's name
  const taken = ifbOf(BW_NETWORK, pod.id);
  await run('ip', ['-n', w.node.name, 'link', 'add', taken, 'type', 'ifb']);
  const conf = { cniVersion: '1.0.0', name: BW_NETWORK, type: 'bandwidth', ...SHAPE, prevResult };
  const r = await execPlugin('bandwidth', { command: 'ADD', containerId: pod.id, netns: pod.ns.path, ifname: 'eth0', nodeNetns: w.node.name }, conf);
  t.equal(r.code, 1, 'ADD fails');
  t.match(r.json, { msg: /^adding link: / }, r.json?.msg);
  t.same(await qdiscKinds(w.node.name, hostVeth), ['noqueue'], 'the ingress tbf and the ingress qdisc it made are removed');
  t.same(await ifbsIn(w.node.name), [taken], 'the existing link of that name is left alone');
});

t.test('DEL leaves the qdiscs of a host link the pod points its forged eth0 at', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir));
  const prevResult = await pod.att.add(); // bridge only; bandwidth runs by hand below
  t.teardown(() => pod.att.del());
  const conf = { cniVersion: '1.0.0', name: BW_NETWORK, type: 'bandwidth', ...SHAPE, prevResult };
  const env = { containerId: pod.id, netns: pod.ns.path, ifname: 'eth0', nodeNetns: w.node.name };
  t.equal((await execPlugin('bandwidth', { command: 'ADD', ...env }, conf)).code, 0, 'ADD shapes the pod');
  t.same(await ifbsIn(w.node.name), [ifbOf(BW_NETWORK, pod.id)], 'control: the ifb is there');

  // Another link of the node with its own shaping and policing.
  await run('ip', ['-n', w.node.name, 'link', 'add', 'victim0', 'index', '4242', 'type', 'veth', 'peer', 'name', 'victim1']);
  await nsRun(w.node.name, 'tc', ['qdisc', 'add', 'dev', 'victim0', 'root', 'handle', '1:', 'tbf', 'rate', '1mbit', 'burst', '10000', 'limit', '20000']);
  await nsRun(w.node.name, 'tc', ['qdisc', 'add', 'dev', 'victim0', 'ingress']);
  t.same(await qdiscKinds(w.node.name, 'victim0'), ['tbf', 'ingress'], 'control: the victim is shaped');
  // A pod with CAP_NET_ADMIN re-creates eth0 as a veth whose peer has the victim's index.
  await run('ip', ['-n', pod.ns.name, 'link', 'del', 'eth0']);
  await run('ip', ['-n', pod.ns.name, 'link', 'add', 'p1', 'index', '4242', 'type', 'veth', 'peer', 'name', 'eth0']);

  const del = await execPlugin('bandwidth', { command: 'DEL', ...env }, conf);
  t.equal(del.code, 0, `DEL succeeds ${del.stdout}`);
  t.same(await qdiscKinds(w.node.name, 'victim0'), ['tbf', 'ingress'], "the victim's tbf and ingress qdisc stay");
  t.same(await ifbsIn(w.node.name), [], "the attachment's ifb is gone");
});
