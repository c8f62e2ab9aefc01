// host-local through the built executable: ADD → CHECK → DEL → DEL for every spec version,
// the on-disk state after each step, config errors (code 7, the reference's message, the
// field), STATUS on an exhausted range, and GC against a list of valid attachments.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { makeNetns } from '../helpers/netns.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { execPlugin, GO_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { allVersionsRan, hasCheck, ipsCarryVersion, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';

function hostLocal(dataDir: string, version: string, ipam: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { cniVersion: version, name: 'hl-net', type: 'host-local-test', ipam: { type: 'host-local', dataDir, ...ipam }, ...extra };
}

const DUAL = [[{ subnet: '10.11.0.0/24', gateway: '10.11.0.254' }], [{ subnet: 'fd00:11::/64' }]];

const done: string[] = [];
for (const version of SPEC_VERSIONS) {
  t.test(`host-local ${version}: ADD → CHECK → DEL → DEL`, { skip: needsRoot }, async (t) => {
    const ns = await makeNetns(t, 'hl');
    const dataDir = tempDir(t);
    const dir = join(dataDir, 'hl-net');
    const conf = hostLocal(dataDir, version, { ranges: DUAL, routes: [{ dst: '0.0.0.0/0' }] });
    const env = { containerId: `ctr-${version}`, netns: ns.path, ifname: 'eth0' };

    const add = await execPlugin('host-local', { command: 'ADD', ...env }, conf);
    t.equal(add.code, 0, add.stdout);
    const r = add.json;
    t.equal(r.cniVersion, version, 'result in the config version');
    if (isPre030(version)) {
      t.same(r.ip4, { ip: '10.11.0.1/24', gateway: '10.11.0.254', routes: [{ dst: '0.0.0.0/0' }] }, 'custom gateway: .1 is allocatable');
      t.same(r.ip6, { ip: 'fd00:11::2/64', gateway: 'fd00:11::1' });
    } else {
      const v = ipsCarryVersion(version);
      t.same(r.ips, [
        { ...(v && { version: '4' }), address: '10.11.0.1/24', gateway: '10.11.0.254' },
        { ...(v && { version: '6' }), address: 'fd00:11::2/64', gateway: 'fd00:11::1' },
      ]);
      t.same(r.routes, [{ dst: '0.0.0.0/0' }]);
    }
    t.same(ipFiles(dataDir, 'hl-net'), ['10.11.0.1', 'fd00:11::2']);
    t.equal(readFileSync(join(dir, '10.11.0.1'), 'latin1'), `ctr-${version}\r\neth0`);
    t.equal(statSync(join(dir, 'fd00:11::2')).mode & 0o777, 0o600);
    t.equal(readFileSync(join(dir, 'last_reserved_ip.1'), 'latin1'), 'fd00:11::2');
    t.ok(existsSync(join(dir, 'lock')));

    if (hasCheck(version)) {
      const check = await execPlugin('host-local', { command: 'CHECK', ...env }, { ...conf, prevResult: r });
      t.equal(check.code, 0, `CHECK: ${check.stdout}`);
    }
    for (const round of ['DEL', 'second DEL']) {
      const del = await execPlugin('host-local', { command: 'DEL', ...env }, conf);
      t.equal(del.code, 0, `${round}: ${del.stdout}`);
      t.equal(del.stdout, '', `${round} prints nothing`);
      t.same(ipFiles(dataDir, 'hl-net'), [], `${round}: nothing left allocated`);
    }
    if (hasCheck(version)) {
      const check = await execPlugin('host-local', { command: 'CHECK', ...env }, { ...conf, prevResult: r });
      t.match(check.json, { code: 999, msg: `host-local: Failed to find address added by container ctr-${version}` }, 'CHECK after DEL fails');
    }
    done.push(version);
  });
}
allVersionsRan(t, done, needsRoot);

// Each config problem: code 7, the reference's exact message (checked against Debian's Go
// plugin when present, which prints the same text as code 999), and the field's path.
const bad: { name: string; ipam: Record<string, unknown>; extra?: Record<string, unknown>; msg: string; details: string | RegExp }[] = [
  {
    name: '/31 refused',
    ipam: { ranges: [[{ subnet: '10.12.0.0/31' }]] },
    msg: 'invalid range set 0: Network 10.12.0.0/31 too small to allocate from',
    details: 'ipam.ranges[0][0].subnet',
  },
  {
    name: 'host bits',
    ipam: { ranges: [[{ subnet: '10.12.0.0/24' }], [{ subnet: 'fd00:12::1/64' }]] },
    msg: 'invalid range set 1: Network has host bits set. For a subnet mask of length 64 the network address is fd00:12::',
    details: 'ipam.ranges[1][0].subnet',
  },
  {
    name: 'rangeStart outside',
    ipam: { subnet: '10.12.0.0/24', rangeStart: '10.13.0.1' },
    msg: 'invalid range set 0: RangeStart 10.13.0.1 not in network 10.12.0.0/24',
    details: 'ipam.rangeStart',
  },
  {
    name: 'rangeEnd before rangeStart',
    ipam: { ranges: [[{ subnet: '10.12.0.0/24', rangeStart: '10.12.0.50', rangeEnd: '10.12.0.10' }]] },
    msg: 'invalid range set 0: RangeStart 10.12.0.50 not in network 10.12.0.0/24',
    details: 'ipam.ranges[0][0].rangeStart',
  },
  { name: 'empty set', ipam: { ranges: [[]] }, msg: 'invalid range set 0: empty range set', details: 'ipam.ranges[0]' },
  {
    name: 'no subnet',
    ipam: { ranges: [[{ gateway: '10.12.0.1' }]] },
    msg: 'invalid range set 0: IP <nil> not v4 nor v6',
    details: 'ipam.ranges[0][0].subnet',
  },
  {
    name: 'mixed families',
    ipam: { ranges: [[{ subnet: '10.12.0.0/24' }, { subnet: 'fd00:12::/64' }]] },
    msg: 'invalid range set 0: mixed address families',
    details: 'ipam.ranges[0][1]',
  },
  {
    name: 'overlap in a set',
    ipam: { ranges: [[{ subnet: '10.12.0.0/24' }, { subnet: '10.12.0.0/16' }]] },
    msg: 'invalid range set 0: subnets 10.12.0.1-10.12.0.254 and 10.12.0.1-10.12.255.254 overlap',
    details: 'ipam.ranges[0][1]',
  },
  {
    name: 'overlapping sets',
    ipam: { ranges: [[{ subnet: '10.12.0.0/24' }], [{ subnet: '10.12.0.0/16' }]] },
    msg: 'range set 0 overlaps with 1',
    details: 'ipam.ranges[1]',
  },
  { name: 'no ranges', ipam: {}, msg: 'no IP ranges specified', details: 'ipam.ranges' },
  {
    name: 'two IPv4 sets at 0.2.0',
    ipam: { ranges: [[{ subnet: '10.12.0.0/24' }], [{ subnet: '10.13.0.0/24' }]] },
    extra: { cniVersion: '0.2.0' },
    msg: 'CNI version 0.2.0 does not support more than 1 address per family',
    details: 'ipam.ranges[1]',
  },
  {
    name: 'empty requested address',
    ipam: { ranges: [[{ subnet: '10.12.0.0/24' }]] },
    extra: { args: { cni: { ips: [''] } } },
    msg: 'cannot understand ip: IP <nil> not v4 nor v6',
    details: 'args.cni.ips[0]',
  },
  {
    name: 'badly written gateway',
    ipam: { ranges: [[{ subnet: '10.12.0.0/24', gateway: 'bad' }]] },
    msg: 'invalid network config',
    details: 'ipam.ranges[0][0].gateway: invalid IP address: bad',
  },
];

for (const b of bad) {
  t.test(`config error: ${b.name}`, { skip: needsRoot }, async (t) => {
    const dataDir = tempDir(t);
    const conf = hostLocal(dataDir, '1.0.0', b.ipam, b.extra);
    const env = { command: 'ADD' as const, containerId: 'c1', netns: '/run/netns/cnits-none', ifname: 'eth0' };
    const ours = await execPlugin('host-local', env, conf);
    t.equal(ours.code, 1);
    t.match(ours.json, { code: 7, msg: b.msg, details: b.details });
    t.same(readdirSync(dataDir), [], 'nothing written');
    if (b.msg !== 'invalid network config') {
      const theirs = await execPlugin('host-local', env, conf, GO_BIN);
      t.equal(theirs.json?.msg, b.msg, 'the reference says the same');
    }
  });
}

t.test('a network without ipam: code 7 and the reference message', { skip: needsRoot }, async (t) => {
  const r = await execPlugin(
    'host-local',
    { command: 'ADD', containerId: 'c1', netns: '/run/netns/cnits-none', ifname: 'eth0' },
    { cniVersion: '1.0.0', name: 'n' },
  );
  t.match(r.json, { code: 7, msg: "IPAM config missing 'ipam' key", details: 'ipam' });
});

t.test('STATUS with ipam.failStatusWhenFull: fine until the range is exhausted, then code 50 naming the set', { skip: needsRoot }, async (t) => {
  const dataDir = tempDir(t);
  const ranges = [[{ subnet: 'fd00:13::/64' }], [{ subnet: '10.13.0.0/24', rangeStart: '10.13.0.20', rangeEnd: '10.13.0.21' }]];
  const conf = hostLocal(dataDir, '1.1.0', { ranges, failStatusWhenFull: true });
  const status = () => execPlugin('host-local', { command: 'STATUS' }, conf);
  t.equal((await status()).code, 0, 'fresh network: available');
  for (const id of ['a', 'b']) {
    const r = await execPlugin('host-local', { command: 'ADD', containerId: id, netns: '/run/netns/cnits-none', ifname: 'eth0' }, conf);
    t.equal(r.code, 0, r.stdout);
  }
  const byDefault = await execPlugin('host-local', { command: 'STATUS' }, hostLocal(dataDir, '1.1.0', { ranges }));
  t.equal(byDefault.code, 0, `without the key a full range is not a STATUS failure: ${byDefault.stdout}`);
  const full = await status();
  t.equal(full.code, 1);
  t.same(full.json, { code: 50, msg: 'no IP addresses available in range set 1: 10.13.0.20-10.13.0.21' });
  const third = await execPlugin('host-local', { command: 'ADD', containerId: 'c', netns: '/run/netns/cnits-none', ifname: 'eth0' }, conf);
  t.match(third.json, { msg: 'failed to allocate for range 1: no IP addresses available in range set: 10.13.0.20-10.13.0.21' }, 'ADD indeed fails');
  await execPlugin('host-local', { command: 'DEL', containerId: 'a', netns: '', ifname: 'eth0' }, conf);
  t.equal((await status()).code, 0, 'available again after a DEL');
});

t.test('GC: 10 attachments, 4 still valid → 6 released, 4 kept', { skip: needsRoot }, async (t) => {
  const dataDir = tempDir(t);
  const dir = join(dataDir, 'hl-net');
  const conf = hostLocal(dataDir, '1.1.0', { ranges: [[{ subnet: '10.14.0.0/24' }]] });
  const ids = Array.from({ length: 10 }, (_, i) => `gc-${i}`);
  for (const id of ids) {
    const r = await execPlugin('host-local', { command: 'ADD', containerId: id, netns: '/run/netns/cnits-none', ifname: 'eth0' }, conf);
    t.equal(r.code, 0, r.stdout);
  }
  t.equal(ipFiles(dataDir, 'hl-net').length, 10);
  const gcNoList = await execPlugin('host-local', { command: 'GC' }, conf);
  t.equal(gcNoList.code, 0);
  t.equal(ipFiles(dataDir, 'hl-net').length, 10, 'GC without a list releases nothing');
  const valid = ['gc-1', 'gc-4', 'gc-7', 'gc-9'].map((containerID) => ({ containerID, ifname: 'eth0' }));
  const gc = await execPlugin('host-local', { command: 'GC' }, { ...conf, 'cni.dev/valid-attachments': valid, 'cni.dev/attachments': valid });
  t.equal(gc.code, 0, gc.stdout);
  t.equal(gc.stdout, '');
  const left = ipFiles(dataDir, 'hl-net')
    .map((f) => readFileSync(join(dir, f), 'latin1').split('\r\n')[0])
    .sort();
  t.same(left, ['gc-1', 'gc-4', 'gc-7', 'gc-9']);
});
