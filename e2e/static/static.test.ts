// static through the built executable: ADD → CHECK → DEL → DEL for every spec version, the
// precedence of its address sources and its errors, compared with Debian's Go static.
import t from 'tap';
import { makeNetns } from '../helpers/netns.ts';
import { execPlugin, GO_BIN, type PluginRun } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { allVersionsRan, hasCheck, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';

const NETNS = '/run/netns/cnits-none';

function conf(version: string, ipam: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { cniVersion: version, name: 'st-net', type: 'bridge', ipam: { type: 'static', ...ipam }, ...extra };
}

const IPAM = {
  addresses: [
    { address: '10.20.0.5/24', gateway: '10.20.0.1' },
    { address: 'fd00:20::5/64', gateway: 'fd00:20::1' },
  ],
  routes: [{ dst: '0.0.0.0/0' }, { dst: 'fd00:21::/64', gw: 'fd00:20::1' }],
  dns: { nameservers: ['10.20.0.53'], domain: 'example.org', search: ['example.org'], options: ['ndots:2'] },
};

const done: string[] = [];
for (const version of SPEC_VERSIONS) {
  t.test(`static ${version}: ADD → CHECK → DEL → DEL`, { skip: needsRoot }, async (t) => {
    const ns = await makeNetns(t, 'st');
    const env = { containerId: 'st-1', netns: ns.path, ifname: 'eth0' };
    const c = conf(version, IPAM);
    const add = await execPlugin('static', { command: 'ADD', ...env }, c);
    t.equal(add.code, 0, add.stdout);
    t.equal(add.json.cniVersion, version);
    if (isPre030(version)) {
      t.same(add.json.ip4, { ip: '10.20.0.5/24', gateway: '10.20.0.1', routes: [{ dst: '0.0.0.0/0' }] });
      t.same(add.json.ip6, { ip: 'fd00:20::5/64', gateway: 'fd00:20::1', routes: [{ dst: 'fd00:21::/64', gw: 'fd00:20::1' }] });
    } else {
      t.same(
        add.json.ips.map((i: { address: string; gateway: string }) => [i.address, i.gateway]),
        [
          ['10.20.0.5/24', '10.20.0.1'],
          ['fd00:20::5/64', 'fd00:20::1'],
        ],
      );
      t.same(add.json.routes, IPAM.routes);
    }
    t.same(add.json.dns, IPAM.dns);
    // Debian's Go static (v1.1.1) knows spec versions up to 1.0.0
    if (version !== '1.1.0') {
      const ref = await execPlugin('static', { command: 'ADD', ...env }, c, GO_BIN);
      // 1.x output: Debian's older libcni keeps struct order, the reference since v1.2 sorts keys as we do.
      if (version === '1.0.0') t.same(add.json, ref.json, 'what the reference prints');
      else t.equal(add.stdout, ref.stdout, 'byte for byte what the reference prints');
    }
    if (hasCheck(version)) {
      const check = await execPlugin('static', { command: 'CHECK', ...env }, { ...c, prevResult: add.json });
      t.equal(check.code, 0, check.stdout);
      const wrong = { ...add.json, ips: [{ address: '10.20.0.5/24', gateway: '10.20.0.9' }] };
      const bad = await execPlugin('static', { command: 'CHECK', ...env }, { ...c, prevResult: wrong });
      t.match(bad.json, { code: 999, msg: 'static: Failed to match addr 10.20.0.5 on interface eth0' });
    }
    for (const round of ['DEL', 'second DEL']) {
      const del = await execPlugin('static', { command: 'DEL', ...env }, c);
      t.equal(del.code, 0, `${round}: ${del.stdout}`);
      t.equal(del.stdout, '');
    }
    done.push(version);
  });
}
allVersionsRan(t, done, needsRoot);

async function both(args: string, c: object): Promise<[PluginRun, PluginRun]> {
  const env = { command: 'ADD' as const, containerId: 'st-2', netns: NETNS, ifname: 'eth0', args };
  return [await execPlugin('static', env, c), await execPlugin('static', env, c, GO_BIN)];
}

t.test('address sources: runtimeConfig.ips > args.cni.ips > addresses + CNI_ARGS, like the reference', { skip: needsRoot }, async (t) => {
  const base = { addresses: [{ address: '10.20.0.5/24', gateway: '10.20.0.1' }] };
  const cases: [string, object, string[]][] = [
    ['IP=10.22.0.5/16,fd00:22::5/64;GATEWAY=10.22.0.1', conf('0.4.0', base), ['10.20.0.5/24 10.20.0.1', '10.22.0.5/16 10.22.0.1', 'fd00:22::5/64 -']],
    ['IP=10.22.0.5/16', conf('0.4.0', base, { args: { cni: { ips: ['10.23.0.5/24'] } } }), ['10.23.0.5/24 -']],
    ['', conf('0.4.0', base, { args: { cni: { ips: ['10.23.0.5/24'] } }, runtimeConfig: { ips: ['10.24.0.5/24'] } }), ['10.24.0.5/24 -']],
    ['', conf('0.4.0', base, { RuntimeConfig: { IPs: ['10.25.0.5/24'] } }), ['10.25.0.5/24 -']],
  ];
  for (const [args, c, want] of cases) {
    const [ours, theirs] = await both(args, c);
    t.equal(ours.code, 0, ours.stdout);
    t.same(
      ours.json.ips.map((i: { address: string; gateway?: string }) => `${i.address} ${i.gateway ?? '-'}`),
      want,
      `${args || JSON.stringify(c).slice(60, 140)}`,
    );
    t.equal(ours.stdout, theirs.stdout, 'same output as the reference');
  }
});

t.test('errors: code 7, the reference message, the field', { skip: needsRoot }, async (t) => {
  const cases: [string, object, string, string?][] = [
    ['', { cniVersion: '1.0.0', name: 'n' }, "IPAM config missing 'ipam' key", 'ipam'],
    [
      '',
      conf('1.0.0', { addresses: [{ address: '10.20.0.5' }] }),
      "the 'address' field is expected to be in CIDR notation, got: '10.20.0.5'",
      'ipam.addresses[0].address',
    ],
    ['IP=10.20.0.6', conf('1.0.0', {}), "the 'ip' field is expected to be in CIDR notation, got: '10.20.0.6'"],
    ['IP=10.20.0.6/24;GATEWAY=x', conf('1.0.0', {}), 'invalid gateway address: x'],
    [
      '',
      conf('1.0.0', {}, { args: { cni: { ips: ['10.20.0.7'] } } }),
      "an entry in the 'ips' field is NOT in CIDR notation, got: '10.20.0.7'",
      'args.cni.ips[0]',
    ],
    [
      '',
      conf('1.0.0', {}, { runtimeConfig: { ips: ['fd00::7'] } }),
      "an entry in the 'ips' field is NOT in CIDR notation, got: 'fd00::7'",
      'runtimeConfig.ips[0]',
    ],
    [
      '',
      conf('0.2.0', { addresses: [{ address: '10.20.0.5/24' }, { address: '10.21.0.5/24' }] }),
      'CNI version 0.2.0 does not support more than 1 address per family',
    ],
  ];
  for (const [args, c, msg, details] of cases) {
    const [ours, theirs] = await both(args, c);
    t.equal(ours.code, 1);
    t.match(ours.json, { code: 7, msg, ...(details && { details }) }, msg);
    t.equal(theirs.json?.msg, msg, 'the reference says the same');
  }
  const [unknown] = await both('FOO=1', conf('1.0.0', {}));
  t.same(unknown.json, { code: 999, msg: 'ARGS: unknown args ["FOO=1"]' }, 'CNI_ARGS problems keep the reference code');
});
