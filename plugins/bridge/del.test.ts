// cmdDel runs every step and reports all failures together, against recording fakes (test-deps.ts).
import t from 'tap';
import { makeRequest } from '../../lib/ipam/test-request.ts';
import { cmdDel } from './del.ts';
import { fakeDeps } from './test-deps.ts';

const del = (extra: Record<string, unknown> = {}) =>
  makeRequest(
    { cniVersion: '1.1.0', name: 'net1', type: 'bridge', bridge: 'cni0', ipam: { type: 'host-local' }, ipMasq: true, macspoofchk: true, ...extra },
    { command: 'DEL' },
  );

t.test('three DEL steps fail: every step still runs, and one error names all three, in step order', async (t) => {
  const { deps, calls } = fakeDeps({
    deleteLink: new Error('operation not permitted'),
    ipamDel: new Error('failed to open store: permission denied'),
    teardownMacSpoofCheck: new Error('running [nft -f -]: exit status 1: Error: Could not process rule'),
  });
  const prevResult = { cniVersion: '1.1.0', ips: [{ address: '10.1.0.9/24' }] };
  await t.rejects(cmdDel(del({ prevResult }), deps), {
    code: 999,
    message: 'operation not permitted; failed to open store: permission denied; running [nft -f -]: exit status 1: Error: Could not process rule',
  });
  t.same(calls, [
    'openNetnsIfExists /run/netns/unused',
    'getLinkByName pod eth0',
    'listAddresses pod 2',
    // started before the link goes (it runs while the kernel removes the veth), with the
    // addresses the link had rather than prevResult's
    'teardownIpMasq 10.1.0.5/24',
    'deleteLink pod 2',
    'ipamDel host-local',
    'teardownMacSpoofCheck ctr1 eth0',
    'close pod',
  ]);
});

t.test('the masquerade teardown fails: its error comes after the steps before it', async (t) => {
  const { deps } = fakeDeps({
    ipamDel: new Error('failed to open store: permission denied'),
    teardownIpMasq: new Error('running [iptables-restore -w --noflush]: exit status 4'),
  });
  await t.rejects(cmdDel(del(), deps), {
    code: 999,
    message: 'failed to open store: permission denied; running [iptables-restore -w --noflush]: exit status 4',
  });
});

t.test('the link cannot be read: prevResult names the addresses whose rules go', async (t) => {
  const { deps, calls } = fakeDeps({ listAddresses: new Error('netlink: operation not permitted') });
  const prevResult = { cniVersion: '1.1.0', ips: [{ address: '10.1.0.9/24' }] };
  await t.rejects(cmdDel(del({ prevResult }), deps), { message: 'netlink: operation not permitted' });
  t.same(calls, [
    'openNetnsIfExists /run/netns/unused',
    'getLinkByName pod eth0',
    'listAddresses pod 2',
    'teardownIpMasq 10.1.0.9/24',
    'ipamDel host-local',
    'teardownMacSpoofCheck ctr1 eth0',
    'close pod',
  ]);
});

t.test('one failing step passes through as it is', async (t) => {
  const { deps } = fakeDeps({ ipamDel: new Error('failed to open store: permission denied') });
  await t.rejects(cmdDel(del(), deps), { code: 999, message: 'failed to open store: permission denied' });
});

t.test('all steps succeed: addresses read from the link before it goes', async (t) => {
  const { deps, calls } = fakeDeps();
  await cmdDel(del(), deps);
  t.same(calls.slice(-5), ['teardownIpMasq 10.1.0.5/24', 'deleteLink pod 2', 'ipamDel host-local', 'teardownMacSpoofCheck ctr1 eth0', 'close pod']);
});
