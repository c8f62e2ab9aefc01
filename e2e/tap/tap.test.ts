// the built tap (+ host-local) in throwaway pod netns: every spec version (ADD → the device as the
// kernel's tun driver reports it → CHECK → DEL leaves nothing → DEL again), the device's flags
// against iproute2's `ip tuntap add` (what the reference runs), owner, group, queues, MTU, MAC
// and where it comes from, a bridge port, L2 only, CHECK noticing a change, a failing ADD undone,
// DEL when things are gone, STATUS and GC.
import t from 'tap';
import { makeNetns } from '../helpers/netns.ts';
import { hostLocal, podLink, podLinkNames, podRun, SUBNET, tunAttrs } from '../helpers/pod-link.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { ipJson, needsRoot, run } from '../../test-support/sh.ts';
import { hasCheck, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';

// include/uapi/linux/if_tun.h, as /sys/class/net/<dev>/tun_flags shows them.
const IFF_TAP = 0x2;
const IFF_MULTI_QUEUE = 0x100;
const IFF_PERSIST = 0x800;
const IFF_NO_PI = 0x1000;
const IFF_VNET_HDR = 0x4000;

const tapConf = (cniVersion: string, extra: object, ipam?: (dataDir: string) => object) => (dataDir: string) => ({
  cniVersion,
  name: 'tapnet',
  type: 'tap',
  ...extra,
  ...(ipam && { ipam: ipam(dataDir) }),
});

t.test('every spec version: ADD makes the tap, CHECK passes, DEL leaves nothing, DEL again', { skip: needsRoot }, async (t) => {
  for (const v of SPEC_VERSIONS) {
    const r = await podRun(
      t,
      'tap',
      tapConf(v, { mtu: 1400, owner: 1234, group: 4321, multiQueue: true }, (d) => hostLocal(d)),
      `tap-${v}`,
    );
    const add = await r.call('ADD');
    t.equal(add.code, 0, `${v} ADD ${add.stdout}${add.stderr}`);
    const l = await podLink(r.pod.name);
    t.equal(l?.linkinfo?.info_kind, 'tun', `${v}: a tun device`);
    t.match(l?.linkinfo?.info_data, { type: 'tap', persist: true, multi_queue: true }, `${v}: a persistent multi-queue tap`);
    t.equal(l?.mtu, 1400, `${v}: MTU`);
    t.ok(l?.flags.includes('UP'), `${v}: up`);
    t.same(
      await tunAttrs(r.pod.name),
      { flags: IFF_TAP | IFF_VNET_HDR | IFF_MULTI_QUEUE | IFF_NO_PI | IFF_PERSIST, owner: 1234, group: 4321 },
      `${v}: owner, group and flags`,
    );
    const ip = isPre030(v) ? add.json.ip4.ip : add.json.ips[0].address;
    t.match(ip, /^10\.77\.0\.\d+\/24$/, `${v}: an address from the range`);
    t.same(
      l?.addr_info?.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`),
      [ip],
      `${v}: the address is on the tap`,
    );
    if (!isPre030(v)) t.match(add.json.interfaces, [{ name: 'eth0', mac: l?.address, sandbox: r.pod.path }], `${v}: the result names the tap`);
    const routes = await ipJson<{ dst: string; gateway?: string }[]>(r.pod.name, ['-4', 'route', 'show']);
    t.ok(
      routes.some((rt) => rt.dst === '10.78.0.0/16' && rt.gateway === '10.77.0.1'),
      `${v}: the IPAM's route`,
    );
    if (hasCheck(v)) {
      const check = await r.call('CHECK', { prevResult: add.json });
      t.equal(check.code, 0, `${v}: CHECK passes ${check.stdout}`);
    }
    const del = await r.call('DEL', { prevResult: add.json });
    t.equal(del.code, 0, `${v}: DEL ${del.stdout}`);
    t.same(await podLinkNames(r.pod.name), [], `${v}: no link left`);
    t.same(ipFiles(r.dataDir, 'tapnet'), [], `${v}: no allocation left`);
    t.equal((await r.call('DEL')).code, 0, `${v}: DEL again`);
  }
});

t.test("flags, owner and group as the reference's two ways of making the tap", { skip: needsRoot }, async (t) => {
  // Without both owner and group the reference runs `ip tuntap add mode tap [multi_queue] [user U]
  // [group G]`: iproute2 here is the oracle. With both, vishvananda/netlink's fixed flags.
  const cases: { extra: object; ip: string[] | number }[] = [
    { extra: {}, ip: [] },
    { extra: { multiQueue: true }, ip: ['multi_queue'] },
    { extra: { owner: 1000 }, ip: ['user', '1000'] },
    { extra: { group: 0, multiQueue: true }, ip: ['multi_queue', 'group', '0'] },
    { extra: { owner: 0, group: 7 }, ip: IFF_TAP | IFF_VNET_HDR | IFF_PERSIST },
  ];
  for (const c of cases) {
    const r = await podRun(t, 'tap', tapConf('1.0.0', c.extra));
    const add = await r.call('ADD');
    t.equal(add.code, 0, `ADD ${JSON.stringify(c.extra)} ${add.stdout}`);
    const ours = await tunAttrs(r.pod.name);
    if (typeof c.ip === 'number') {
      t.same(ours, { flags: c.ip, owner: 0, group: 7 }, `${JSON.stringify(c.extra)}: vnet_hdr, owner and group`);
    } else {
      const oracle = await makeNetns(t, 'tapip');
      await run('ip', ['-n', oracle.name, 'tuntap', 'add', 'mode', 'tap', 'name', 'eth0', ...c.ip]);
      t.same(ours, await tunAttrs(oracle.name), `${JSON.stringify(c.extra)}: as ip tuntap add mode tap ${c.ip.join(' ')}`);
    }
    t.equal((await r.call('DEL')).code, 0, 'DEL');
  }
});

t.test('MTU and MAC also with both owner and group; the MAC from CNI_ARGS and runtimeConfig, later winning', { skip: needsRoot }, async (t) => {
  const r = await podRun(t, 'tap', tapConf('1.1.0', { owner: 1, group: 1, mtu: 9000, mac: '02:00:00:00:00:01' }));
  const add = await r.call('ADD');
  t.equal(add.code, 0, `ADD ${add.stdout}`);
  t.match(await podLink(r.pod.name), { mtu: 9000, address: '02:00:00:00:00:01' }, 'both applied');
  t.equal(add.json.interfaces[0].mac, '02:00:00:00:00:01', 'the result carries the MAC');
  await r.call('DEL');
  const viaArgs = await r.call('ADD', { args: 'IgnoreUnknown=1;MAC=02:00:00:00:00:02' });
  t.equal(viaArgs.code, 0, `ADD with CNI_ARGS ${viaArgs.stdout}`);
  t.equal((await podLink(r.pod.name))?.address, '02:00:00:00:00:02', 'CNI_ARGS MAC wins over mac');
  await r.call('DEL');
  const rc = await podRun(t, 'tap', tapConf('1.1.0', { mac: '02:00:00:00:00:01', runtimeConfig: { mac: '02-00-00-00-00-03' } }));
  const viaRc = await rc.call('ADD', { args: 'MAC=02:00:00:00:00:02' });
  t.equal(viaRc.code, 0, `ADD with runtimeConfig.mac ${viaRc.stdout}`);
  t.equal((await podLink(rc.pod.name))?.address, '02:00:00:00:00:03', 'runtimeConfig.mac wins over both');
  await rc.call('DEL');
});

t.test('a port of a bridge in the pod; a missing bridge fails and leaves nothing', { skip: needsRoot }, async (t) => {
  const r = await podRun(
    t,
    'tap',
    tapConf('1.0.0', { bridge: 'br0' }, (d) => hostLocal(d)),
  );
  const missing = await r.call('ADD');
  t.equal(missing.code, 1, 'ADD fails without the bridge');
  t.match(missing.json, { code: 999, msg: 'failed to get bridge br0: Link not found' });
  t.same(await podLinkNames(r.pod.name), [], 'no tap left');
  t.same(ipFiles(r.dataDir, 'tapnet'), [], 'no allocation made');
  await run('ip', ['-n', r.pod.name, 'link', 'add', 'br0', 'type', 'bridge']);
  const add = await r.call('ADD');
  t.equal(add.code, 0, `ADD ${add.stdout}`);
  t.equal((await podLink(r.pod.name))?.master, 'br0', 'the tap is a port of br0');
  t.equal((await r.call('DEL')).code, 0, 'DEL');
  t.same(await podLinkNames(r.pod.name), ['br0'], 'the bridge stays, the tap goes');
});

t.test('L2 only: no ipam, an up tap and no addresses; 0.2.0 cannot express it and leaves nothing', { skip: needsRoot }, async (t) => {
  const r = await podRun(t, 'tap', tapConf('1.0.0', { dns: { nameservers: ['10.0.0.53'] } }));
  const add = await r.call('ADD');
  t.equal(add.code, 0, `ADD ${add.stdout}`);
  t.same(add.json, {
    cniVersion: '1.0.0',
    interfaces: [{ name: 'eth0', mac: (await podLink(r.pod.name))?.address, sandbox: r.pod.path }],
    dns: { nameservers: ['10.0.0.53'] },
  });
  t.ok((await podLink(r.pod.name))?.flags.includes('UP'), 'up');
  t.equal((await r.call('CHECK', { prevResult: add.json })).code, 0, 'CHECK');
  t.equal((await r.call('DEL')).code, 0, 'DEL');
  const old = await podRun(t, 'tap', tapConf('0.2.0', {}));
  const refused = await old.call('ADD');
  t.match(refused.json, { code: 1, msg: 'cannot convert: no valid IP addresses' }, '0.2.0 has no L2 result');
  t.same(await podLinkNames(old.pod.name), [], 'and no tap is left');
});

t.test('CHECK notices a removed address, a removed route and a removed tap', { skip: needsRoot }, async (t) => {
  const r = await podRun(
    t,
    'tap',
    tapConf('1.1.0', {}, (d) => hostLocal(d)),
  );
  const add = await r.call('ADD');
  t.equal(add.code, 0, `ADD ${add.stdout}`);
  const ip = add.json.ips[0].address as string;
  await run('ip', ['-n', r.pod.name, 'route', 'del', '10.78.0.0/16']);
  t.match((await r.call('CHECK', { prevResult: add.json })).json, { msg: /Expected Route \{Dst:10\.78\.0\.0\/16/ }, 'a removed route');
  await run('ip', ['-n', r.pod.name, 'addr', 'del', ip, 'dev', 'eth0']);
  t.match((await r.call('CHECK', { prevResult: add.json })).json, { msg: `Failed to match addr ${ip} on interface eth0` }, 'a removed address');
  await run('ip', ['-n', r.pod.name, 'link', 'del', 'eth0']);
  const l2 = { ...add.json, ips: [], routes: [] };
  t.match((await r.call('CHECK', { prevResult: l2 })).json, { msg: 'Cannot find container link eth0' }, 'a removed tap, even without addresses');
  t.equal((await r.call('DEL')).code, 0, 'DEL with the tap already gone');
  t.same(ipFiles(r.dataDir, 'tapnet'), [], 'the allocation is released');
});

t.test('a failing ADD leaves nothing: IPAM failing after the tap is made; a name already taken', { skip: needsRoot }, async (t) => {
  // A range of one address, taken by a first ADD: the second's IPAM fails after its tap exists.
  const one = (d: string) => hostLocal(d, { ranges: [[{ subnet: SUBNET, rangeStart: '10.77.0.9', rangeEnd: '10.77.0.9' }]] });
  const first = await podRun(t, 'tap', tapConf('1.0.0', {}, one), 'tap-first');
  t.equal((await first.call('ADD')).code, 0, 'first ADD');
  const second = await podRun(t, 'tap', (d) => ({ ...tapConf('1.0.0', {}, one)(d), ipam: one(first.dataDir) }), 'tap-second');
  const failed = await second.call('ADD');
  t.not(failed.code, 0, `second ADD fails: ${failed.stdout}`);
  t.same(await podLinkNames(second.pod.name), [], 'its tap is removed (the reference keeps it)');
  await first.call('DEL');
  const taken = await podRun(
    t,
    'tap',
    tapConf('1.0.0', {}, (d) => hostLocal(d)),
  );
  await run('ip', ['-n', taken.pod.name, 'link', 'add', 'eth0', 'type', 'bridge']);
  const clash = await taken.call('ADD');
  t.equal(clash.code, 1, `ADD over an existing eth0 fails ${clash.stdout}`);
  t.same(await podLinkNames(taken.pod.name), ['eth0'], 'the existing link alone is left (the reference reports it as its tap)');
  t.equal((await podLink(taken.pod.name))?.linkinfo?.info_kind, 'bridge', 'untouched');
  t.same(ipFiles(taken.dataDir, 'tapnet'), [], 'no allocation');
});

t.test('bad values are refused before anything is made', { skip: needsRoot }, async (t) => {
  const cases: [object, RegExp][] = [
    [{ mtu: 65522 }, /invalid MTU 65522/],
    [{ mac: '02:00:00:00:00' }, /invalid args 02:00:00:00:00 for MAC addr/],
    [{ mac: '01:00:5e:00:00:01' }, /not a unicast address/],
    [{ owner: -1 }, /owner -1 is not a uint32/],
    [{ group: 4294967296 }, /group 4294967296 is not a uint32/],
    [{ multiQueue: 'yes' }, /multiQueue/],
  ];
  for (const [extra, msg] of cases) {
    const r = await podRun(
      t,
      'tap',
      tapConf('1.0.0', extra, (d) => hostLocal(d)),
    );
    const add = await r.call('ADD');
    t.equal(add.json?.code, 7, `${JSON.stringify(extra)}: code 7`);
    t.match(`${add.json?.msg} ${add.json?.details}`, msg, `${JSON.stringify(extra)}: names the problem`);
    t.same(await podLinkNames(r.pod.name), [], 'no tap');
    t.same(ipFiles(r.dataDir, 'tapnet'), [], 'no allocation');
  }
});

t.test('selinuxContext on a host without SELinux fails as the reference does, leaving nothing', { skip: needsRoot }, async (t) => {
  const r = await podRun(t, 'tap', tapConf('1.0.0', { selinuxContext: 'system_u:system_r:container_t:s0' }));
  const add = await r.call('ADD');
  t.match(add.json, { code: 999, msg: 'failed set socket label: write /proc/thread-self/attr/exec: invalid argument' });
  t.same(await podLinkNames(r.pod.name), [], 'no tap');
});

t.test('DEL succeeds when the netns is gone; STATUS; GC frees allocations no longer listed', { skip: needsRoot }, async (t) => {
  const r = await podRun(
    t,
    'tap',
    tapConf('1.1.0', {}, (d) => hostLocal(d)),
  );
  t.equal((await r.call('ADD')).code, 0, 'ADD');
  t.equal((await r.call('STATUS')).code, 0, 'STATUS');
  t.equal((await r.call('GC')).code, 0, 'GC without cni.dev/valid-attachments');
  t.equal(ipFiles(r.dataDir, 'tapnet').length, 1, 'keeps the allocation');
  const listed = await r.call('GC', { config: { 'cni.dev/valid-attachments': [{ containerID: 'tap-e2e', ifname: 'eth0' }] } });
  t.equal(listed.code, 0, `GC listing the attachment ${listed.stdout}`);
  t.equal(ipFiles(r.dataDir, 'tapnet').length, 1, 'keeps it too');
  const stale = await r.call('GC', { config: { 'cni.dev/valid-attachments': [] } });
  t.equal(stale.code, 0, 'GC listing nothing');
  t.same(ipFiles(r.dataDir, 'tapnet'), [], 'frees it (the reference has no GC)');
  await run('ip', ['netns', 'del', r.pod.name]);
  const del = await r.call('DEL');
  t.equal(del.code, 0, `DEL with the netns gone ${del.stdout}`);
  t.equal((await r.call('DEL')).code, 0, 'DEL again');
});

t.test('DEL runs every step: an IPAM DEL that fails still lets the tap go, and the failure is reported', { skip: needsRoot }, async (t) => {
  const r = await podRun(
    t,
    'tap',
    tapConf('1.0.0', {}, (d) => hostLocal(d)),
  );
  t.equal((await r.call('ADD')).code, 0, 'ADD');
  const del = await r.call('DEL', { config: { ipam: { type: 'cnits-no-such-ipam' } } });
  t.equal(del.code, 1, `DEL fails: ${del.stdout}`);
  t.match(del.json?.msg, /cnits-no-such-ipam/, 'naming the IPAM plugin it could not run');
  t.same(await podLinkNames(r.pod.name), [], 'the tap is gone all the same (the reference stops before it)');
  t.equal((await r.call('DEL')).code, 0, 'a DEL with the right config then releases the allocation');
  t.same(ipFiles(r.dataDir, 'tapnet'), [], 'nothing left');
});
