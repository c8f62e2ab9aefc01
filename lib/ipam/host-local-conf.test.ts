import t from 'tap';
import { formatAddr } from './addr.ts';
import { loadHostLocalConf } from './host-local-conf.ts';
import { formatRangeSet } from './range-set.ts';
import { makeRequest } from './test-request.ts';

const conf = (ipam: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  cniVersion: '1.0.0',
  name: 'net1',
  type: 'bridge',
  ipam: { type: 'host-local', ...ipam },
  ...extra,
});
const load = (c: Record<string, unknown>, args = '') => loadHostLocalConf(makeRequest(c, { args }));
const sets = (c: Record<string, unknown>) => load(c).rangeSets.map(formatRangeSet);

t.test('range sets: runtimeConfig.ipRanges, then the old single range, then ranges', async (t) => {
  const c = conf(
    { subnet: '10.2.0.0/24', rangeStart: '10.2.0.10', ranges: [[{ subnet: '10.3.0.0/24' }], [{ subnet: 'fd00:3::/120' }]] },
    { runtimeConfig: { ipRanges: [[{ subnet: '10.1.0.0/24', rangeEnd: '10.1.0.9' }]] } },
  );
  t.same(sets(c), ['10.1.0.1-10.1.0.9', '10.2.0.10-10.2.0.254', '10.3.0.1-10.3.0.254', 'fd00:3::1-fd00:3::ff']);
  t.same(
    sets(conf({ rangeStart: '10.2.0.10', ranges: [[{ subnet: '10.3.0.0/24' }]] })),
    ['10.3.0.1-10.3.0.254'],
    'old range fields without a subnet are ignored',
  );
});

t.test('keys fold case like Go; unknown keys are ignored', async (t) => {
  const c = {
    cniVersion: '1.0.0',
    name: 'net1',
    IPAM: { Type: 'host-local', Ranges: [[{ SUBNET: '10.1.0.0/24', RangeStart: '10.1.0.5' }]], DATADIR: '/tmp/x', whatever: 1 },
    RuntimeConfig: { IPs: ['10.1.0.7'] },
    unknownTop: { a: 1 },
  };
  const l = load(c);
  t.same(l.rangeSets.map(formatRangeSet), ['10.1.0.5-10.1.0.254']);
  t.equal(l.dir, '/tmp/x/net1');
  t.same(l.requested.map(formatAddr), ['10.1.0.7']);
});

t.test('dataDir defaults to /var/lib/cni/networks; routes are kept', async (t) => {
  const l = load(conf({ ranges: [[{ subnet: '10.1.0.0/24' }]], routes: [{ dst: '0.0.0.0/0' }, { dst: '10.9.0.5/16', gw: '10.1.0.1', priority: 5 }] }));
  t.equal(l.dir, '/var/lib/cni/networks/net1', 'the reference default dataDir');
  t.same(l.routes, [{ dst: '0.0.0.0/0' }, { dst: '10.9.0.5/16', gw: '10.1.0.1', priority: 5 }]);
});

const cases: { name: string; config: Record<string, unknown>; msg: string; details: string | RegExp; args?: string }[] = [
  { name: 'no ipam', config: { cniVersion: '1.0.0', name: 'n' }, msg: "IPAM config missing 'ipam' key", details: 'ipam' },
  { name: 'no ranges', config: conf({}), msg: 'no IP ranges specified', details: 'ipam.ranges' },
  { name: 'empty set', config: conf({ ranges: [[{ subnet: '10.1.0.0/24' }], []] }), msg: 'invalid range set 1: empty range set', details: 'ipam.ranges[1]' },
  {
    name: '/31',
    config: conf({ ranges: [[{ subnet: '10.1.0.0/31' }]] }),
    msg: 'invalid range set 0: Network 10.1.0.0/31 too small to allocate from',
    details: 'ipam.ranges[0][0].subnet',
  },
  {
    name: 'old range with host bits',
    config: conf({ subnet: '10.1.0.1/24' }),
    msg: 'invalid range set 0: Network has host bits set. For a subnet mask of length 24 the network address is 10.1.0.0',
    details: 'ipam.subnet',
  },
  {
    name: 'runtimeConfig range start outside',
    config: conf({ ranges: [[{ subnet: '10.1.0.0/24' }]] }, { runtimeConfig: { ipRanges: [[{ subnet: '10.2.0.0/24', rangeStart: '10.3.0.1' }]] } }),
    msg: 'invalid range set 0: RangeStart 10.3.0.1 not in network 10.2.0.0/24',
    details: 'runtimeConfig.ipRanges[0][0].rangeStart',
  },
  {
    name: 'range without subnet',
    config: conf({ ranges: [[{ subnet: '10.1.0.0/24' }, { rangeStart: '10.2.0.1' }]] }),
    msg: 'invalid range set 0: IP <nil> not v4 nor v6',
    details: 'ipam.ranges[0][1].subnet',
  },
  {
    name: 'mixed families',
    config: conf({ ranges: [[{ subnet: '10.1.0.0/24' }, { subnet: 'fd00::/64' }]] }),
    msg: 'invalid range set 0: mixed address families',
    details: 'ipam.ranges[0][1]',
  },
  {
    name: 'overlap inside a set',
    config: conf({ ranges: [[{ subnet: '10.1.0.0/24' }, { subnet: '10.1.0.0/16' }]] }),
    msg: 'invalid range set 0: subnets 10.1.0.1-10.1.0.254 and 10.1.0.1-10.1.255.254 overlap',
    details: 'ipam.ranges[0][1]',
  },
  {
    name: 'overlap between sets',
    config: conf({ ranges: [[{ subnet: '10.1.0.0/24' }], [{ subnet: 'fd00::/64' }], [{ subnet: '10.1.0.0/16' }]] }),
    msg: 'range set 0 overlaps with 2',
    details: 'ipam.ranges[2]',
  },
  {
    name: 'two IPv4 sets at 0.2.0',
    config: { ...conf({ ranges: [[{ subnet: '10.1.0.0/24' }], [{ subnet: '10.2.0.0/24' }]] }), cniVersion: '0.2.0' },
    msg: 'CNI version 0.2.0 does not support more than 1 address per family',
    details: 'ipam.ranges[1]',
  },
  {
    name: 'two IPv6 sets at 0.1.0',
    config: { ...conf({ ranges: [[{ subnet: 'fd00:1::/64' }], [{ subnet: '10.2.0.0/24' }], [{ subnet: 'fd00:2::/64' }]] }), cniVersion: '0.1.0' },
    msg: 'CNI version 0.1.0 does not support more than 1 address per family',
    details: 'ipam.ranges[2]',
  },
  {
    name: 'empty requested address in args',
    config: conf({ ranges: [[{ subnet: '10.1.0.0/24' }]] }, { args: { cni: { ips: ['10.1.0.5', ''] } } }),
    msg: 'cannot understand ip: IP <nil> not v4 nor v6',
    details: 'args.cni.ips[1]',
  },
  {
    name: 'badly written addresses, all reported with their paths',
    config: conf({ ranges: [[{ subnet: '10.1.0/24', gateway: '10.1.0.300' }]], routes: [{ dst: 'default' }] }, { runtimeConfig: { ips: ['10.1.0.5/99'] } }),
    msg: 'invalid network config',
    details:
      'ipam.ranges[0][0].subnet: invalid CIDR address: 10.1.0/24; ipam.ranges[0][0].gateway: invalid IP address: 10.1.0.300; ipam.routes[0].dst: invalid CIDR address: default; runtimeConfig.ips[0]: invalid IP address 10.1.0.5/99',
  },
  {
    name: 'wrong JSON type',
    config: conf({ ranges: [[{ subnet: '10.1.0.0/24' }]], dataDir: 5 }),
    msg: 'invalid network config',
    details: /^ipam\.dataDir: expected string/,
  },
];

for (const c of cases) {
  t.test(`config error: ${c.name}`, async (t) => {
    t.throws(() => load(c.config, c.args), { code: 7, msg: c.msg, details: c.details });
  });
}

t.test('versions: one address per family before 0.3.0, any number from 0.3.0', async (t) => {
  const dual = { ranges: [[{ subnet: '10.1.0.0/24' }], [{ subnet: 'fd00::/64' }]] };
  for (const v of ['0.1.0', '0.2.0']) t.equal(load({ ...conf(dual), cniVersion: v }).rangeSets.length, 2, `${v}: one v4 and one v6`);
  const two = { ranges: [[{ subnet: '10.1.0.0/24' }], [{ subnet: '10.2.0.0/24' }]] };
  for (const v of ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0']) t.equal(load({ ...conf(two), cniVersion: v }).rangeSets.length, 2, v);
});

t.test('requested addresses: CNI_ARGS, args and runtimeConfig together, prefixes ignored, each once', async (t) => {
  const c = conf(
    { ranges: [[{ subnet: '10.1.0.0/24' }]] },
    { args: { cni: { ips: ['10.1.0.6/24', '10.1.0.5'] } }, runtimeConfig: { ips: ['fd00::7/64', '10.1.0.5'] } },
  );
  t.same(load(c, 'IgnoreUnknown=1;K8S_POD_NAME=p;IP=10.1.0.5').requested.map(formatAddr), ['10.1.0.5', '10.1.0.6', 'fd00::7']);
  t.same(load(c, 'IP=').requested.map(formatAddr), ['10.1.0.6', '10.1.0.5', 'fd00::7'], 'an empty CNI_ARGS IP asks for nothing');
  t.same(load(c, 'IP=10.1.0.9/24').requested.map(formatAddr), ['10.1.0.9', '10.1.0.6', '10.1.0.5', 'fd00::7']);
  t.throws(() => load(c, 'IP=10.1.0.300'), { code: 999, msg: 'ARGS: error parsing value of pair "IP=10.1.0.300": invalid IP address 10.1.0.300' });
  t.throws(() => load(c, 'IP=10.1.0.5;POD=x'), { code: 999, msg: 'ARGS: unknown args ["POD=x"]' });
});
