import t from 'tap';
import { formatAddr, parseAddr, parseSubnet, type Addr } from './addr.ts';
import { candidates } from './iterator.ts';
import { canonicalizeRangeSet, type RangeSet } from './range-set.ts';

const ip = (s: string): Addr => parseAddr(s) as Addr;
function set(...ranges: { subnet: string; rangeStart?: string; rangeEnd?: string; gateway?: string }[]): RangeSet {
  return canonicalizeRangeSet(
    ranges.map((r) => ({
      subnet: parseSubnet(r.subnet),
      ...(r.rangeStart && { rangeStart: ip(r.rangeStart) }),
      ...(r.rangeEnd && { rangeEnd: ip(r.rangeEnd) }),
      ...(r.gateway && { gateway: ip(r.gateway) }),
    })),
    's',
  );
}
const order = (s: RangeSet, last?: string, max = 100) => {
  const out: string[] = [];
  for (const c of candidates(s, last === undefined ? undefined : ip(last))) {
    out.push(formatAddr(c.ip));
    if (out.length >= max) break;
  }
  return out;
};

t.test('from the start, the default gateway (.1) skipped', async (t) => {
  t.same(order(set({ subnet: '10.0.0.0/29' })), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
});

t.test('with a custom gateway, .1 is a candidate and the gateway is not', async (t) => {
  t.same(order(set({ subnet: '10.0.0.0/29', gateway: '10.0.0.4' })), ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.5', '10.0.0.6']);
});

t.test('round-robin: starts right after the last reserved address, wraps, ends with it', async (t) => {
  const s = set({ subnet: '10.0.0.0/29' });
  t.same(order(s, '10.0.0.4'), ['10.0.0.5', '10.0.0.6', '10.0.0.2', '10.0.0.3', '10.0.0.4']);
  t.same(order(s, '10.0.0.6'), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'], 'after the end comes the start');
  t.same(order(s, '10.0.0.1'), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'], 'the gateway as last reserved');
  t.same(order(s, '10.9.9.9'), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'], 'a last address outside the set is ignored');
  t.same(order(s, 'fd00::1'), ['10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'], 'so is one of the other family');
});

t.test('several ranges: walked in order, wrapping from the last back to the first', async (t) => {
  const s = set(
    { subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.12' },
    { subnet: '10.0.1.0/24', rangeStart: '10.0.1.1', rangeEnd: '10.0.1.3' },
  );
  t.same(order(s), ['10.0.0.10', '10.0.0.11', '10.0.0.12', '10.0.1.2', '10.0.1.3'], "the second range's gateway .1 is skipped");
  t.same(order(s, '10.0.0.12'), ['10.0.1.2', '10.0.1.3', '10.0.0.10', '10.0.0.11', '10.0.0.12']);
  t.same(order(s, '10.0.1.2'), ['10.0.1.3', '10.0.0.10', '10.0.0.11', '10.0.0.12', '10.0.1.2']);
});

t.test('IPv6: the last address of the subnet is a candidate', async (t) => {
  t.same(order(set({ subnet: 'fd00::/126' })), ['fd00::2', 'fd00::3']);
  t.same(order(set({ subnet: 'fd00::/64', rangeStart: 'fd00::ffff:ffff:ffff:fffe' }), undefined), ['fd00::ffff:ffff:ffff:fffe', 'fd00::ffff:ffff:ffff:ffff']);
});

t.test('a range that is only its gateway yields nothing and ends', async (t) => {
  t.same(order(set({ subnet: '10.0.0.0/30', rangeStart: '10.0.0.1', rangeEnd: '10.0.0.1' })), []);
  t.same(order(set({ subnet: '10.0.0.0/30', rangeStart: '10.0.0.1', rangeEnd: '10.0.0.1' }), '10.0.0.1'), []);
});
