import t from 'tap';
import { assembleResult } from './result.ts';

const parts = {
  cniVersion: '1.1.0',
  bridge: { name: 'cni0', mac: '0a:00:00:00:00:01' },
  hostVeth: { name: 'veth0a0b0c0d', mac: '0a:00:00:00:00:02' },
  container: { name: 'eth0', mac: '0a:00:00:00:00:03', sandbox: '/run/netns/p' },
};

t.test('L2: interfaces only', async (t) => {
  t.same(assembleResult(parts), { cniVersion: '1.1.0', interfaces: [parts.bridge, parts.hostVeth, parts.container] });
});

t.test('L3 with a VLAN gateway as 4th interface; the config DNS wins over IPAM DNS', async (t) => {
  const r = assembleResult({
    ...parts,
    vlanGateway: { name: 'cni0.100', mac: '0a:00:00:00:00:04' },
    ips: [{ address: '10.0.0.5/24', gateway: '10.0.0.1', interface: 2 }],
    routes: [{ dst: '0.0.0.0/0', gw: '10.0.0.1' }],
    ipamDns: { nameservers: ['10.0.0.53'] },
    dnsOverride: { nameservers: ['1.1.1.1'], search: ['svc'] },
  });
  t.same(
    r.interfaces?.map((i) => i.name),
    ['cni0', 'veth0a0b0c0d', 'eth0', 'cni0.100'],
  );
  t.same(r.dns, { nameservers: ['1.1.1.1'], search: ['svc'] });
  t.same(r.ips, [{ address: '10.0.0.5/24', gateway: '10.0.0.1', interface: 2 }]);
});

t.test('IPAM DNS passes through; empty lists are left out', async (t) => {
  const r = assembleResult({ ...parts, ips: [], routes: [], ipamDns: { nameservers: ['10.0.0.53'] } });
  t.same(r.dns, { nameservers: ['10.0.0.53'] });
  t.notOk('ips' in r);
  t.notOk('routes' in r);
});
