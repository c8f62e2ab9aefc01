// the built vrf in throwaway netns, on what a previous plugin leaves (a veth to a peer netns with
// addresses and a route, and its prevResult): two VRFs holding the same addresses, each reaching
// its own peer; the routes moved into each VRF's table; CHECK; DEL removing what ADD made but
// leaving a VRF another attachment still uses; DEL twice and with the netns gone; a failing ADD
// undone. The verbs that touch no kernel (VERSION, GC, STATUS, an unsupported version) run
// everywhere; the rest need vrf links (CONFIG_NET_VRF): else the kernel lab runs this file.
import t from 'tap';
import { impl } from '../helpers/impl.ts';
import { makeNetns } from '../helpers/netns.ts';
import { callVrf, pingsVia, podLinks, prevResult, tableRoutes, vrfConf, wire } from '../helpers/vrf.ts';
import { needsRoot, run } from '../../test-support/sh.ts';

const skip = impl.lacks('kernel-vrf');

t.test('two VRFs holding the same addresses: each reaches its own peer; routes in its table; CHECK; DEL', { skip }, async (t) => {
  const pod = await makeNetns(t, 'cnits-vrf');
  await wire(t, pod, 'eth1', { metric: 100, far: '10.90.0.1' });
  await wire(t, pod, 'eth2', { metric: 200, far: '10.90.0.2' });
  const redConf = vrfConf('red', { table: 100, cniVersion: '1.1.0', pod, ifname: 'eth1' });
  const blueConf = vrfConf('blue', { cniVersion: '0.3.1', pod, ifname: 'eth2' });
  const addRed = await callVrf('ADD', { netns: pod.path, ifname: 'eth1' }, redConf);
  t.equal(addRed.code, 0, `ADD red ${addRed.stdout}${addRed.stderr}`);
  t.same(addRed.json, prevResult(pod, 'eth1', '1.1.0'), 'prevResult passes through');
  const addBlue = await callVrf('ADD', { netns: pod.path, ifname: 'eth2' }, blueConf);
  t.equal(addBlue.code, 0, `ADD blue ${addBlue.stdout}${addBlue.stderr}`);
  t.match(addBlue.json, { cniVersion: '0.3.1', interfaces: [{ name: 'eth2' }] }, 'in the config’s version');
  t.same(
    await podLinks(pod.name),
    {
      eth1: { kind: 'veth', master: 'red' },
      eth2: { kind: 'veth', master: 'blue' },
      red: { kind: 'vrf', table: 100 },
      blue: { kind: 'vrf', table: 1 },
    },
    'red has its configured table, blue the lowest free one',
  );
  t.same(await tableRoutes(pod.name, 100), ['10.80.0.0/24 dev eth1', '10.90.0.0/24 via 10.80.0.1 dev eth1'], 'red’s routes in table 100');
  t.same(await tableRoutes(pod.name, 1), ['10.80.0.0/24 dev eth2', '10.90.0.0/24 via 10.80.0.1 dev eth2'], 'blue’s in table 1');
  t.same(await tableRoutes(pod.name, 'main'), [], 'none left in main');
  t.same(await tableRoutes(pod.name, 100, '-6'), ['fd80::/64 dev eth1'], 'the IPv6 address and its route survived enslaving');
  t.ok(await pingsVia(pod.name, 'red', '10.90.0.1'), 'red reaches its peer through the moved route');
  t.ok(await pingsVia(pod.name, 'blue', '10.90.0.2'), 'blue reaches its own');
  t.notOk(await pingsVia(pod.name, 'red', '10.90.0.2'), 'red does not reach blue’s peer');
  t.ok(await pingsVia(pod.name, 'red', 'fd80::1'), 'red over IPv6');
  t.equal((await callVrf('CHECK', { netns: pod.path, ifname: 'eth1' }, redConf)).code, 0, 'CHECK red');
  const wrong = await callVrf('CHECK', { netns: pod.path, ifname: 'eth2' }, redConf);
  t.match(wrong.json, { code: 999, msg: 'failed to find eth2 associated to vrf red' }, 'CHECK of an interface in another VRF');
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth1' }, redConf)).code, 0, 'DEL red');
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth2' }, blueConf)).code, 0, 'DEL blue');
  t.same(await podLinks(pod.name), { eth1: { kind: 'veth' }, eth2: { kind: 'veth' } }, 'both VRFs gone, the interfaces released');
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth1' }, redConf)).code, 0, 'DEL again');
});

t.test('a VRF two attachments share: DEL of one leaves it; DEL twice; DEL of the last removes it; DEL with the netns gone', { skip }, async (t) => {
  const pod = await makeNetns(t, 'cnits-vrf');
  await wire(t, pod, 'eth1', { metric: 100, far: '10.90.0.1' });
  await wire(t, pod, 'eth2', { metric: 200, far: '10.90.0.1' });
  const one = vrfConf('shared', { pod, ifname: 'eth1' });
  const two = vrfConf('shared', { table: 0, pod, ifname: 'eth2' });
  t.equal((await callVrf('ADD', { netns: pod.path, ifname: 'eth1' }, one)).code, 0, 'ADD eth1');
  t.equal((await callVrf('ADD', { netns: pod.path, ifname: 'eth2' }, two)).code, 0, 'ADD eth2 to the same VRF');
  const clash = await callVrf('ADD', { netns: pod.path, ifname: 'eth2' }, vrfConf('shared', { table: 7, pod, ifname: 'eth2' }));
  t.match(clash.json, { code: 999, msg: 'cmdAdd failed: VRF shared already exist with different routing table 1' }, 'another table for an existing VRF');
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth1' }, one)).code, 0, 'DEL eth1');
  t.same((await podLinks(pod.name))['shared'], { kind: 'vrf', table: 1 }, 'the VRF stays for eth2');
  t.same((await podLinks(pod.name))['eth1'], { kind: 'veth' }, 'eth1 released');
  await run('ip', ['-n', pod.name, 'link', 'del', 'eth1']);
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth1' }, one)).code, 0, 'DEL eth1 again, its link gone meanwhile');
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth2' }, two)).code, 0, 'DEL eth2');
  t.same(await podLinks(pod.name), { eth2: { kind: 'veth' } }, 'the VRF went with its last member');
  t.equal((await callVrf('ADD', { netns: pod.path, ifname: 'eth2' }, two)).code, 0, 'ADD again');
  await run('ip', ['netns', 'del', pod.name]);
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth2' }, two)).code, 0, 'DEL with the netns gone');
});

t.test('a failing ADD leaves nothing: no such interface; an interface with a master already; DEL leaves another master alone', { skip }, async (t) => {
  const pod = await makeNetns(t, 'cnits-vrf');
  await wire(t, pod, 'eth1', { metric: 100, far: '10.90.0.1' });
  const missing = await callVrf('ADD', { netns: pod.path, ifname: 'eth9' }, vrfConf('red', { pod, ifname: 'eth9' }));
  t.match(missing.json, { code: 999, msg: 'cmdAdd failed: could not get link by name eth9' });
  await run('ip', ['-n', pod.name, 'link', 'add', 'br0', 'type', 'bridge']);
  await run('ip', ['-n', pod.name, 'link', 'set', 'eth1', 'master', 'br0']);
  const taken = await callVrf('ADD', { netns: pod.path, ifname: 'eth1' }, vrfConf('red', { pod, ifname: 'eth1' }));
  t.match(taken.json, { code: 999, msg: 'cmdAdd failed: interface eth1 has already a master set: br0' });
  t.same(await podLinks(pod.name), { eth1: { kind: 'veth', master: 'br0' }, br0: { kind: 'bridge' } }, 'no VRF made, eth1 untouched');
  const del = await callVrf('DEL', { netns: pod.path, ifname: 'eth1' }, vrfConf('br0'));
  t.match(del.json, { code: 999, msg: 'Netlink br0 is not a VRF' }, 'DEL naming a link that is no VRF');
  await run('ip', ['-n', pod.name, 'link', 'add', 'red', 'type', 'vrf', 'table', '5']);
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth1' }, vrfConf('red'))).code, 0, 'DEL of red while eth1 is a port of br0');
  t.same(
    await podLinks(pod.name),
    { eth1: { kind: 'veth', master: 'br0' }, br0: { kind: 'bridge' } },
    'eth1 stays in br0 (the reference releases it); red, empty, goes',
  );
});

t.test('VERSION, STATUS and GC; a spec version before 0.3.1; no prevResult; no vrfname', { skip: needsRoot }, async (t) => {
  const pod = await makeNetns(t, 'cnits-vrf');
  const v = await callVrf('VERSION', { netns: pod.path, ifname: 'eth0' }, { cniVersion: '1.1.0' });
  t.same(v.json, { cniVersion: '1.1.0', supportedVersions: ['0.3.1', '0.4.0', '1.0.0', '1.1.0'] }, 'the reference’s versions');
  t.equal((await callVrf('STATUS', { netns: pod.path, ifname: 'eth0' }, vrfConf('red', { cniVersion: '1.1.0' }))).code, 0, 'STATUS');
  const gc = await callVrf('GC', { netns: pod.path, ifname: 'eth0' }, { ...vrfConf('red', { cniVersion: '1.1.0' }), 'cni.dev/valid-attachments': [] });
  t.equal(gc.code, 0, 'GC');
  t.match(
    (await callVrf('ADD', { netns: pod.path, ifname: 'eth0' }, vrfConf('red', { cniVersion: '0.3.0', pod, ifname: 'eth0' }))).json,
    { code: 1 },
    '0.3.0 is refused',
  );
  t.match((await callVrf('ADD', { netns: pod.path, ifname: 'eth0' }, vrfConf('red'))).json, { code: 7, msg: 'missing prevResult from earlier plugin' });
  t.match((await callVrf('DEL', { netns: pod.path, ifname: 'eth0' }, { cniVersion: '1.0.0', name: 'n', type: 'vrf' })).json, {
    code: 7,
    msg: 'configuration is expected to have a valid vrf name',
  });
  t.same(await podLinks(pod.name), {}, 'nothing made');
});
