// cmdAdd's order of steps and its undo, against recording fakes (test-deps.ts): no root, no netns.
import t from 'tap';
import { makeRequest } from '../../lib/ipam/test-request.ts';
import { cmdAdd } from './add.ts';
import { fakeDeps } from './test-deps.ts';

const conf = (extra: Record<string, unknown> = {}) =>
  makeRequest({ cniVersion: '1.1.0', name: 'net1', type: 'bridge', bridge: 'cni0', ipam: { type: 'host-local' }, ...extra });

t.test('IPAM fails: the veth made before it is removed, and nothing else is undone', async (t) => {
  const { deps, calls } = fakeDeps({ ipamAdd: new Error('no IP addresses available in range set: 10.1.0.0/24') });
  await t.rejects(cmdAdd(conf(), deps), { message: 'no IP addresses available in range set: 10.1.0.0/24' }, "IPAM's error is the ADD's error");
  t.same(calls, [
    'openNetns /run/netns/unused',
    'ensureBridge cni0',
    'createPort eth0 master cni0',
    'configurePort veth0a1b2c3d',
    'ipamAdd host-local',
    'deleteLink host 7',
    'close pod',
    'close host',
  ]);
});

t.test('a late failure unwinds every earlier step, newest first', async (t) => {
  const { deps, calls } = fakeDeps({ setupIpMasq: new Error('running [iptables-restore]: exit status 4') });
  await t.rejects(cmdAdd(conf({ isGateway: true, ipMasq: true, macspoofchk: true }), deps), { message: 'running [iptables-restore]: exit status 4' });
  t.same(calls, [
    'resolveMasqBackend (unset)',
    'openNetns /run/netns/unused',
    'ensureBridge cni0',
    'createPort eth0 master cni0',
    'configurePort veth0a1b2c3d',
    'setupMacSpoofCheck veth0a1b2c3d 0a:00:00:00:00:02',
    'ipamAdd host-local',
    'configureContainer pod eth0',
    'setupGateways cni0 10.1.0.1/24',
    'setupIpMasq iptables 10.1.0.5/24',
    // undo
    'teardownIpMasq 10.1.0.5/24',
    'ipamDel host-local',
    'teardownMacSpoofCheck ctr1 eth0',
    'deleteLink host 7',
    'close pod',
    'close host',
  ]);
});

t.test('an undo step that fails does not stop the others, nor replace the error', async (t) => {
  const { deps, calls } = fakeDeps({ configureContainer: new Error('file exists'), ipamDel: new Error('store locked') });
  await t.rejects(cmdAdd(conf({ macspoofchk: true }), deps), { message: 'file exists' });
  t.same(calls.slice(calls.indexOf('configureContainer pod eth0')), [
    'configureContainer pod eth0',
    'ipamDel host-local',
    'teardownMacSpoofCheck ctr1 eth0',
    'deleteLink host 7',
    'close pod',
    'close host',
  ]);
});

t.test('a successful ADD undoes nothing', async (t) => {
  const { deps, calls } = fakeDeps();
  const result = await cmdAdd(conf(), deps);
  t.same(result.ips, [{ address: '10.1.0.5/24', gateway: '10.1.0.1', interface: 2 }]);
  t.same(calls, [
    'openNetns /run/netns/unused',
    'ensureBridge cni0',
    'createPort eth0 master cni0',
    'configurePort veth0a1b2c3d',
    'ipamAdd host-local',
    'configureContainer pod eth0',
    'waitOperUp host 7',
    'getLinkByIndex host 3',
    'getLinkByIndex host 7',
    'close pod',
    'close host',
  ]);
});

t.test('isGateway: the gateway link is settled after the port is up, last before the result', async (t) => {
  const { deps, calls } = fakeDeps();
  await cmdAdd(conf({ isGateway: true }), deps);
  t.same(calls.slice(calls.indexOf('setupGateways cni0 10.1.0.1/24')), [
    'setupGateways cni0 10.1.0.1/24',
    'waitOperUp host 7',
    'settleGateways cni0 10.1.0.1/24',
    'getLinkByIndex host 3',
    'getLinkByIndex host 7',
    'close pod',
    'close host',
  ]);
});
