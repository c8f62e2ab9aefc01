import t from 'tap';
import type { Result } from '../cni-spec/result.ts';
import { IfaceConfigError, planIfaceConfig } from './iface-plan.ts';

const base: Result = {
  cniVersion: '1.1.0',
  interfaces: [{ name: 'br0' }, { name: 'veth1' }, { name: 'eth0', sandbox: '/run/netns/x' }],
};

t.test('addresses of this interface, gateway defaults per family, route fields kept', async (t) => {
  const plan = planIfaceConfig(
    {
      ...base,
      ips: [
        { address: '10.0.0.5/24', gateway: '10.0.0.1', interface: 2 },
        { address: '10.0.1.5/24', gateway: '10.0.1.1', interface: 2 },
        { address: 'fd00::5/64', interface: 2 },
        { address: '192.0.2.9/32' },
      ],
      routes: [{ dst: '0.0.0.0/0' }, { dst: '::/0' }, { dst: '192.168.0.0/16', gw: '10.0.0.254', priority: 10, table: 100, scope: 0 }],
    },
    'eth0',
  );
  t.same(
    plan.addresses,
    [
      { cidr: '10.0.0.5/24', family: 4 },
      { cidr: '10.0.1.5/24', family: 4 },
      { cidr: 'fd00::5/64', family: 6 },
    ],
    'an IP without interface index is skipped',
  );
  t.same(
    plan.routes,
    [{ dst: '0.0.0.0/0', gw: '10.0.0.1' }, { dst: '::/0' }, { dst: '192.168.0.0/16', gw: '10.0.0.254', priority: 10, table: 100, scope: 0 }],
    'first gateway of the family; none for IPv6 here',
  );
  t.equal(plan.enableIpv6, true);
  t.equal(plan.settleIpv6, true, 'an IPv6 address without a gateway is waited for too: the result names it');
});

t.test('an IPv6 address asks for DAD to settle, IPv4 alone does not', async (t) => {
  const plan = planIfaceConfig({ ...base, ips: [{ address: 'fd00::5/64', gateway: 'fd00::1', interface: 2 }] }, 'eth0');
  t.equal(plan.settleIpv6, true);
  const v4 = planIfaceConfig({ ...base, ips: [{ address: '10.0.0.5/24', interface: 2 }] }, 'eth0');
  t.equal(v4.enableIpv6, false);
  t.equal(v4.settleIpv6, false);
});

t.test('refusals', async (t) => {
  t.throws(() => planIfaceConfig({ cniVersion: '1.1.0', ips: [] }, 'eth0'), new IfaceConfigError('no interfaces to configure'));
  t.throws(() => planIfaceConfig({ ...base, ips: [{ address: '10.0.0.5/24', interface: 1 }] }, 'eth0'), {
    message: 'failed to add IP addr 10.0.0.5/24 to "eth0": invalid interface index',
  });
  t.throws(() => planIfaceConfig({ ...base, ips: [{ address: '10.0.0.5/24', interface: 3 }] }, 'eth0'), /invalid interface index/);
  t.throws(() => planIfaceConfig({ ...base, ips: [{ address: '10.0.0.5/24', interface: -1 }] }, 'eth0'), /invalid interface index/);
});
