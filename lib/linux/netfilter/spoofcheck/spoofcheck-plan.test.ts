import t from 'tap';
import { spoofNames } from '../core/names.ts';
import type { NftListing } from '../core/nft-json.ts';
import { planSpoofGc, planSpoofSetup, planSpoofTeardown } from './spoofcheck-plan.ts';

const N = spoofNames('abc', 'eth0');
// network "net"'s tag: cni-net- + 16 hex of SHA-512("net")
const NET = 'cni-net-a4861f4ae9f7d238';

// What every setup writes for attachment abc/eth0 on veth1234abcd with MAC 0a:58:0a:16:00:05.
const ATTACHMENT = [
  'add chain bridge nat cni-br-iface-abc-eth0',
  'add chain bridge nat cni-br-iface-abc-eth0-mac',
  'flush chain bridge nat cni-br-iface-abc-eth0',
  'flush chain bridge nat cni-br-iface-abc-eth0-mac',
  'add rule bridge nat PREROUTING iifname "veth1234abcd" jump cni-br-iface-abc-eth0 comment "macspoofchk-abc-eth0"',
  'add rule bridge nat cni-br-iface-abc-eth0 jump cni-br-iface-abc-eth0-mac comment "macspoofchk-abc-eth0"',
  `add rule bridge nat cni-br-iface-abc-eth0 continue comment "${NET}"`,
  'add rule bridge nat cni-br-iface-abc-eth0-mac ether saddr 0a:58:0a:16:00:05 return comment "macspoofchk-abc-eth0"',
  'add rule bridge nat cni-br-iface-abc-eth0-mac drop comment "macspoofchk-abc-eth0"',
];

t.test('setup on a fresh node: the reference layout in table bridge nat, one transaction', async (t) => {
  t.equal(
    planSpoofSetup({ chains: [], rules: [] }, N, { hostIfname: 'veth1234abcd', mac: '0a:58:0a:16:00:05' }, NET),
    ['add table bridge nat', 'add chain bridge nat PREROUTING { type filter hook prerouting priority -300 ; policy accept ; }', ...ATTACHMENT, ''].join('\n'),
  );
});

const chain = (name: string, handle: number) => ({
  family: 'bridge',
  table: 'nat',
  name,
  handle,
  ...(name === 'PREROUTING' && { type: 'filter', hook: 'prerouting' }),
});
const rule = (chainName: string, handle: number, comment?: string) => ({ family: 'bridge', table: 'nat', chain: chainName, handle, comment, expr: '[]' });

t.test('teardown: our PREROUTING jumps by comment, then both chains, emptied first', async (t) => {
  const listing: NftListing = {
    chains: [chain('PREROUTING', 1), chain('cni-br-iface-abc-eth0', 2), chain('cni-br-iface-abc-eth0-mac', 3), chain('cni-br-iface-xyz-eth0', 8)],
    rules: [
      rule('PREROUTING', 4, 'macspoofchk-abc-eth0'),
      rule('PREROUTING', 9, 'macspoofchk-xyz-eth0'),
      rule('PREROUTING', 10, 'macspoofchk-abc-eth00'),
      rule('PREROUTING', 11, 'macspoofchk-abc-eth0'),
      rule('cni-br-iface-abc-eth0', 5, 'macspoofchk-abc-eth0'),
    ],
  };
  t.equal(
    planSpoofTeardown(listing, N),
    [
      'delete rule bridge nat PREROUTING handle 4',
      'delete rule bridge nat PREROUTING handle 11',
      'flush chain bridge nat cni-br-iface-abc-eth0',
      'flush chain bridge nat cni-br-iface-abc-eth0-mac',
      'delete chain bridge nat cni-br-iface-abc-eth0',
      'delete chain bridge nat cni-br-iface-abc-eth0-mac',
      '',
    ].join('\n'),
  );
});

t.test('teardown of what is gone plans nothing; leftovers are removed piece by piece', async (t) => {
  t.equal(planSpoofTeardown({ chains: [], rules: [] }, N), undefined);
  t.equal(planSpoofTeardown({ chains: [chain('PREROUTING', 1)], rules: [] }, N), undefined);
  t.equal(
    planSpoofTeardown({ chains: [chain('cni-br-iface-abc-eth0-mac', 3)], rules: [] }, N),
    'flush chain bridge nat cni-br-iface-abc-eth0-mac\ndelete chain bridge nat cni-br-iface-abc-eth0-mac\n',
  );
});

t.test('setup where PREROUTING exists: no re-declaration; an earlier jump of this attachment is replaced', async (t) => {
  const listing: NftListing = {
    chains: [chain('PREROUTING', 1)],
    rules: [rule('PREROUTING', 4, 'macspoofchk-abc-eth0'), rule('PREROUTING', 9, 'macspoofchk-xyz-eth0')],
  };
  t.equal(
    planSpoofSetup(listing, N, { hostIfname: 'veth1234abcd', mac: '0a:58:0a:16:00:05' }, NET),
    ['delete rule bridge nat PREROUTING handle 4', ...ATTACHMENT, ''].join('\n'),
  );
});

t.test('GC: only attachments tagged with this network, when not listed', async (t) => {
  const tagged = (ref: string, handle: number, tag: string) => ({ ...rule(`cni-br-iface-${ref}`, handle, tag), expr: '[{"continue":null}]' });
  const listing: NftListing = {
    chains: [
      chain('PREROUTING', 1),
      ...['abc-eth0', 'xyz-eth0', 'go-eth0'].flatMap((r, i) => [chain(`cni-br-iface-${r}`, 10 + i), chain(`cni-br-iface-${r}-mac`, 20 + i)]),
    ],
    rules: [
      rule('PREROUTING', 30, 'macspoofchk-abc-eth0'),
      rule('PREROUTING', 31, 'macspoofchk-xyz-eth0'),
      rule('PREROUTING', 32, 'macspoofchk-go-eth0'), // no tag: the Go plugin's
      tagged('abc-eth0', 40, NET),
      tagged('xyz-eth0', 41, NET),
      tagged('go-eth0', 42, 'cni-net-e25ac3845f8cbe12'), // another network's
    ],
  };
  t.equal(
    planSpoofGc(listing, NET, new Set(['macspoofchk-xyz-eth0'])),
    [
      'delete rule bridge nat PREROUTING handle 30',
      'flush chain bridge nat cni-br-iface-abc-eth0',
      'flush chain bridge nat cni-br-iface-abc-eth0-mac',
      'delete chain bridge nat cni-br-iface-abc-eth0',
      'delete chain bridge nat cni-br-iface-abc-eth0-mac',
      '',
    ].join('\n'),
    'abc goes; xyz is listed; go is not tagged with this network',
  );
  t.equal(planSpoofGc(listing, 'cni-net-0000000000000000', new Set()), undefined, 'a network with no tags: nothing');
});
