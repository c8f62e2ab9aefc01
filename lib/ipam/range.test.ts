import t, { type Test } from 'tap';
import { formatAddr, parseAddr, parseSubnet, type Addr } from './addr.ts';
import { ConfigProblem } from './problem.ts';
import { canonicalizeRangeSet, formatRangeSet, rangeFor } from './range-set.ts';
import { canonicalizeRange, formatRange, type RawRange } from './range.ts';

const ip = (s: string): Addr => parseAddr(s) as Addr;
const raw = (subnet: string, o: { rangeStart?: string; rangeEnd?: string; gateway?: string } = {}): RawRange => ({
  subnet: parseSubnet(subnet),
  ...(o.rangeStart && { rangeStart: ip(o.rangeStart) }),
  ...(o.rangeEnd && { rangeEnd: ip(o.rangeEnd) }),
  ...(o.gateway && { gateway: ip(o.gateway) }),
});
const show = (r: ReturnType<typeof canonicalizeRange>) => ({
  start: formatAddr(r.rangeStart),
  end: formatAddr(r.rangeEnd),
  gateway: formatAddr(r.gateway),
});

function problem(t: Test, fn: () => unknown, message: string, path: string): void {
  const err = t.throws(fn) as unknown as ConfigProblem;
  t.ok(err instanceof ConfigProblem, `${message}: a ConfigProblem`);
  t.equal(err.message, message);
  t.equal(err.path, path);
}

t.test('defaults: start and gateway at network+1, end before broadcast (v4) or last address (v6)', async (t) => {
  t.same(show(canonicalizeRange(raw('10.1.2.0/24'), 'r')), { start: '10.1.2.1', end: '10.1.2.254', gateway: '10.1.2.1' });
  t.same(show(canonicalizeRange(raw('10.1.0.0/16'), 'r')), { start: '10.1.0.1', end: '10.1.255.254', gateway: '10.1.0.1' });
  t.same(show(canonicalizeRange(raw('10.1.2.0/30'), 'r')), { start: '10.1.2.1', end: '10.1.2.2', gateway: '10.1.2.1' });
  t.same(show(canonicalizeRange(raw('2001:db8:1::/64'), 'r')), {
    start: '2001:db8:1::1',
    end: '2001:db8:1:0:ffff:ffff:ffff:ffff',
    gateway: '2001:db8:1::1',
  });
  t.same(show(canonicalizeRange(raw('2001:db8::/126'), 'r')), { start: '2001:db8::1', end: '2001:db8::3', gateway: '2001:db8::1' });
});

t.test('given values are kept; the gateway may even lie outside the subnet', async (t) => {
  const r = canonicalizeRange(raw('10.1.2.0/24', { rangeStart: '10.1.2.10', rangeEnd: '10.1.2.20', gateway: '10.1.2.254' }), 'r');
  t.same(show(r), { start: '10.1.2.10', end: '10.1.2.20', gateway: '10.1.2.254' });
  t.equal(formatRange(r), '10.1.2.10-10.1.2.20');
  t.same(show(canonicalizeRange(raw('10.1.2.0/24', { gateway: '192.0.2.1' }), 'r')).gateway, '192.0.2.1');
  // Only the subnet bounds a given end, so the reference lets it be the broadcast address.
  t.same(show(canonicalizeRange(raw('10.1.2.0/24', { rangeEnd: '10.1.2.255' }), 'r')).end, '10.1.2.255');
});

t.test('every range error of the reference, with the field it is about', async (t) => {
  problem(t, () => canonicalizeRange({}, 'ipam.ranges[0][0]'), 'IP <nil> not v4 nor v6', 'ipam.ranges[0][0].subnet');
  problem(t, () => canonicalizeRange(raw('10.1.2.0/31'), 'r'), 'Network 10.1.2.0/31 too small to allocate from', 'r.subnet');
  problem(t, () => canonicalizeRange(raw('10.1.2.7/32'), 'r'), 'Network 10.1.2.7/32 too small to allocate from', 'r.subnet');
  problem(t, () => canonicalizeRange(raw('2001:db8::/127'), 'r'), 'Network 2001:db8::/127 too small to allocate from', 'r.subnet');
  problem(t, () => canonicalizeRange(raw('2001:db8::/128'), 'r'), 'Network 2001:db8::/128 too small to allocate from', 'r.subnet');
  problem(
    t,
    () => canonicalizeRange(raw('10.1.2.5/24'), 'r'),
    'Network has host bits set. For a subnet mask of length 24 the network address is 10.1.2.0',
    'r.subnet',
  );
  problem(
    t,
    () => canonicalizeRange(raw('2001:db8::5/64'), 'r'),
    'Network has host bits set. For a subnet mask of length 64 the network address is 2001:db8::',
    'r.subnet',
  );
  problem(t, () => canonicalizeRange(raw('::ffff:10.0.0.0/104'), 'r'), 'IPNet IP and Mask version mismatch', 'r.subnet');
  problem(t, () => canonicalizeRange(raw('10.1.2.0/24', { rangeStart: '10.1.3.1' }), 'r'), 'RangeStart 10.1.3.1 not in network 10.1.2.0/24', 'r.rangeStart');
  problem(
    t,
    () => canonicalizeRange(raw('10.1.2.0/24', { rangeStart: '2001:db8::1' }), 'r'),
    'RangeStart 2001:db8::1 not in network 10.1.2.0/24',
    'r.rangeStart',
  );
  // A start after a given end is "not in network" too: the end bounds the check.
  problem(
    t,
    () => canonicalizeRange(raw('10.1.2.0/24', { rangeStart: '10.1.2.50', rangeEnd: '10.1.2.40' }), 'r'),
    'RangeStart 10.1.2.50 not in network 10.1.2.0/24',
    'r.rangeStart',
  );
  problem(t, () => canonicalizeRange(raw('10.1.2.0/24', { rangeEnd: '10.1.3.0' }), 'r'), 'RangeEnd 10.1.3.0 not in network 10.1.2.0/24', 'r.rangeEnd');
  problem(t, () => canonicalizeRange(raw('10.1.2.0/24', { rangeEnd: '10.1.2.0' }), 'r'), 'RangeEnd 10.1.2.0 not in network 10.1.2.0/24', 'r.rangeEnd');
});

t.test('range sets', async (t) => {
  problem(t, () => canonicalizeRangeSet([], 'ipam.ranges[1]'), 'empty range set', 'ipam.ranges[1]');
  problem(t, () => canonicalizeRangeSet([raw('10.1.2.0/24'), raw('2001:db8::/64')], 'ipam.ranges[0]'), 'mixed address families', 'ipam.ranges[0][1]');
  problem(
    t,
    () => canonicalizeRangeSet([raw('10.1.0.0/16'), raw('10.1.2.0/24')], 'ipam.ranges[0]'),
    'subnets 10.1.0.1-10.1.255.254 and 10.1.2.1-10.1.2.254 overlap',
    'ipam.ranges[0][1]',
  );
  problem(t, () => canonicalizeRangeSet([raw('10.1.0.0/33')], 's'), 'IP <nil> not v4 nor v6', 's[0].subnet');
  // Two pieces of one subnet do not overlap.
  const set = canonicalizeRangeSet(
    [raw('10.1.2.0/24', { rangeStart: '10.1.2.10', rangeEnd: '10.1.2.19' }), raw('10.1.2.0/24', { rangeStart: '10.1.2.20', rangeEnd: '10.1.2.29' })],
    's',
  );
  t.equal(formatRangeSet(set), '10.1.2.10-10.1.2.19,10.1.2.20-10.1.2.29');
  t.equal(rangeFor(set, ip('10.1.2.25')), set[1]);
  t.equal(rangeFor(set, ip('10.1.2.5')), undefined, 'in the subnet but outside both ranges');
  t.equal(rangeFor(set, ip('::ffff:10.1.2.12')), set[0], 'IPv4-mapped counts as IPv4');
});
