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

t.test('three DEL steps fail: every step still runs, and one error names all three', async (t) => {
  const { deps, calls } = fakeDeps({
    deleteLink: new Error('operation not permitted'),
    ipamDel: new Error('failed to open store: permission denied'),
    teardownMacSpoofCheck: new Error('running [nft -f -]: exit status 1: Error: Could not process rule'),
  });
  const prevResult = { cniVersion: '1.1.0', ips: [{ address: '10.1.0.5/24' }] };
  await t.rejects(cmdDel(del({ prevResult }), deps), {
    code: 999,
    message: 'operation not permitted; failed to open store: permission denied; running [nft -f -]: exit status 1: Error: Could not process rule',
  });
  t.same(calls, [
    'openNetnsIfExists /run/netns/unused',
    'getLinkByName pod eth0',
    'listAddresses pod 2',
    'deleteLink pod 2',
    'close pod',
    'ipamDel host-local',
    'teardownMacSpoofCheck ctr1 eth0',
    // the veth step failed, so prevResult names the addresses whose rules go
    'teardownIpMasq 10.1.0.5/24',
  ]);
});

t.test('one failing step passes through as it is', async (t) => {
  const { deps } = fakeDeps({ ipamDel: new Error('failed to open store: permission denied') });
  await t.rejects(cmdDel(del(), deps), { code: 999, message: 'failed to open store: permission denied' });
});

t.test('all steps succeed: addresses read from the link before it goes', async (t) => {
  const { deps, calls } = fakeDeps();
  await cmdDel(del(), deps);
  t.same(calls.slice(-3), ['ipamDel host-local', 'teardownMacSpoofCheck ctr1 eth0', 'teardownIpMasq 10.1.0.5/24']);
});
