import t from 'tap';
import type { CniError } from '../../lib/cni-spec/index.ts';
import { addressesOf, nextTable, planSbr, type LinkRoute } from './plan.ts';

t.test('the addresses of the interface: its own, and those naming no interface', async (t) => {
  const prev = {
    cniVersion: '1.0.0',
    interfaces: [{ name: 'eth0' }, { name: 'net1' }],
    ips: [
      { address: '10.0.0.2/24', interface: 0 },
      { address: '10.1.0.2/24', interface: 1 },
      { address: '10.2.0.2/24' },
      { address: '10.3.0.2/24', interface: 7 },
    ],
  };
  t.same(
    addressesOf(prev, 'net1').map((i) => i.address),
    ['10.1.0.2/24', '10.2.0.2/24', '10.3.0.2/24'],
  );
  const err = t.throws(() => addressesOf({ cniVersion: '1.0.0', ips: [] }, 'net1')) as CniError;
  t.equal(err.msg, 'No IP addresses supplied on interface: net1');
});

t.test('tables: the first id from 100 up that no rule or route uses', async (t) => {
  t.equal(nextTable(new Set([253, 254, 255]), 100), 100);
  t.equal(nextTable(new Set([100, 101, 103]), 100), 102);
  t.equal(nextTable(new Set([100, 101, 103]), 102), 102);
});

t.test('a table per address, with its default route, its routes copied, and every interface route leaving main', async (t) => {
  const subnet: LinkRoute & { dst: string } = { family: 4, dst: '10.1.0.0/24', src: '10.1.0.2' };
  const viaGw: LinkRoute & { dst: string } = { family: 4, dst: '192.168.0.0/16', gw: '10.1.0.1' };
  const linkLocal: LinkRoute & { dst: string } = { family: 6, dst: 'fe80::/64' };
  const other: LinkRoute & { dst: string } = { family: 4, dst: '172.16.0.0/12', gw: '10.9.0.1' };
  const plan = planSbr(
    [
      { address: '10.1.0.2/24', gateway: '10.1.0.1' },
      { address: 'fd00::2/64', gateway: 'fd00::1' },
    ],
    [subnet, viaGw, linkLocal, other],
    new Set([100, 102, 254]),
  );
  t.same(plan.rules, [
    { src: '10.1.0.2/32', table: 101 },
    { src: 'fd00::2/128', table: 103 },
  ]);
  t.same(plan.defaults, [
    { family: 4, gw: '10.1.0.1', table: 101 },
    { family: 6, gw: 'fd00::1', table: 103 },
  ]);
  t.same(
    plan.copies.map((c) => [c.route.dst, c.table]),
    [
      ['10.1.0.0/24', 101],
      ['192.168.0.0/16', 101],
      ['fe80::/64', 101],
      ['fe80::/64', 103],
    ],
    'a route with neither source nor gateway goes to every table, as in the reference',
  );
  t.same(
    plan.deletes.map((r) => r.dst),
    ['10.1.0.0/24', '192.168.0.0/16', 'fe80::/64', '172.16.0.0/12'],
  );
});

t.test('a fixed table: only the rules', async (t) => {
  const plan = planSbr([{ address: '10.1.0.2/24', gateway: '10.1.0.1' }, { address: '10.1.0.3/24' }], [{ family: 4, src: '10.1.0.2' }], new Set([100]), 500);
  t.same(plan, {
    rules: [
      { src: '10.1.0.2/32', table: 500 },
      { src: '10.1.0.3/32', table: 500 },
    ],
    defaults: [],
    copies: [],
    deletes: [],
  });
});
