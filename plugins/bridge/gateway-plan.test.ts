import t from 'tap';
import { planGateways } from './gateway-plan.ts';

const gw = { isGateway: true, isDefaultGateway: false };
const dgw = { isGateway: true, isDefaultGateway: true };
const none = { isGateway: false, isDefaultGateway: false };

t.test('every IP goes on the container interface (index 2)', async (t) => {
  const p = planGateways([{ address: '10.0.0.5/24', gateway: '10.0.0.1' }], [], none);
  t.same(p.ips, [{ address: '10.0.0.5/24', gateway: '10.0.0.1', interface: 2 }]);
  t.same(p.gateways, [], 'no gateway addresses without isGateway');
  t.same(planGateways([{ address: '10.0.0.5/24' }], [], none).ips, [{ address: '10.0.0.5/24', interface: 2 }], 'no gateway invented');
});

t.test('isGateway: missing gateways are the subnet first address; the bridge gets gw/prefix', async (t) => {
  const p = planGateways([{ address: '10.22.3.5/16' }, { address: 'fd00::9/64', gateway: 'fd00::fe' }], [], gw);
  t.same(
    p.ips.map((i) => i.gateway),
    ['10.22.0.1', 'fd00::fe'],
  );
  t.same(p.gateways, [
    { family: 4, cidr: '10.22.0.1/16' },
    { family: 6, cidr: 'fd00::fe/64' },
  ]);
  t.same(p.routes, [], 'no default route without isDefaultGateway');
});

t.test('isDefaultGateway: one default route per family, unless IPAM gave one with a gw', async (t) => {
  const p = planGateways([{ address: '10.0.0.5/24' }, { address: '10.0.1.5/24' }, { address: 'fd00::5/64' }], [{ dst: '192.168.0.0/16' }], dgw);
  t.same(p.routes, [{ dst: '192.168.0.0/16' }, { dst: '0.0.0.0/0', gw: '10.0.0.1' }, { dst: '::/0', gw: 'fd00::1' }]);
  const kept = planGateways([{ address: '10.0.0.5/24' }], [{ dst: '0.0.0.0/0', gw: '10.0.0.254' }], dgw);
  t.same(kept.routes, [{ dst: '0.0.0.0/0', gw: '10.0.0.254' }]);
  const noGw = planGateways([{ address: '10.0.0.5/24' }], [{ dst: '0.0.0.0/0' }], dgw);
  t.same(noGw.routes, [{ dst: '0.0.0.0/0' }, { dst: '0.0.0.0/0', gw: '10.0.0.1' }], 'a default route without gw does not count');
});
