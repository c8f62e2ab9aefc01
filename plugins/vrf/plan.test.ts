// The vrf plugin's pure decisions, against the reference's rules (vrf.go at v1.9.1).
import t from 'tap';
import type { AddrInfo, LinkInfo, RouteInfo } from '../../lib/linux/index.ts';
import { freeTable, lostAddresses, routesToMove, vrfMembers } from './plan.ts';

t.test('freeTable: the lowest id from 1 that no VRF uses', async (t) => {
  t.equal(freeTable([]), 1);
  t.equal(freeTable([1, 2, 4]), 3);
  t.equal(freeTable([2]), 1);
  t.equal(freeTable(Array.from({ length: 252 }, (_, i) => i + 1)), 253, 'reserved ids are not skipped, as in the reference');
});

t.test('routesToMove: main table, through the interface, universe scope', async (t) => {
  const r = (o: Partial<RouteInfo>): RouteInfo => ({ family: 4, dst: '0.0.0.0/0', table: 254, scope: 0, protocol: 3, index: 7, ...o });
  const dflt = r({ gw: '10.0.0.1' });
  const v6 = r({ family: 6, dst: 'fd00::/64', protocol: 2 });
  const routes = [dflt, v6, r({ dst: '10.0.0.0/24', scope: 253 }), r({ dst: '10.0.0.2/32', table: 255, scope: 254 }), r({ index: 8 }), r({ table: 100 })];
  t.same(routesToMove(routes, 7), [dflt, v6]);
});

t.test('lostAddresses: global IPv6 addresses missing after enslaving', async (t) => {
  const a = (address: string, o: Partial<AddrInfo> = {}): AddrInfo => ({ family: 6, address, prefixLen: 64, index: 7, scope: 0, ...o });
  const before = [a('fd00::2'), a('fd00::3'), a('fe80::1', { scope: 253 }), a('10.0.0.2', { family: 4, prefixLen: 24 })];
  t.same(lostAddresses(before, [a('fd00::3')]), [a('fd00::2')], 'link-local and IPv4 addresses are the kernel’s business');
  t.same(lostAddresses(before, [a('fd00::2', { prefixLen: 128 }), a('fd00::3')]), [a('fd00::2')], 'another prefix length is another address');
});

t.test('vrfMembers: the links whose master is the VRF', async (t) => {
  const l = (index: number, masterIndex?: number): LinkInfo => ({
    index,
    name: `l${index}`,
    up: true,
    operState: 'UP',
    mtu: 1500,
    mac: '',
    ...(masterIndex && { masterIndex }),
  });
  t.same(
    vrfMembers([l(1), l(2, 5), l(3, 6), l(4, 5)], 5).map((x) => x.index),
    [2, 4],
  );
  t.same(vrfMembers([l(1), l(3, 6)], 5), []);
});
