import t from 'tap';
import { spoofNames } from './names.ts';
import type { NftListing } from './nft-json.ts';
import { planSpoofGc, planSpoofSetup, planSpoofTeardown } from './spoofcheck-plan.ts';

const N = spoofNames('abc', 'eth0');
// network "net"'s marker chain: cni-br-net- + 16 hex of SHA-512("net")
const NET = 'cni-br-net-a4861f4ae9f7d238';

// What every setup writes for attachment abc/eth0 on veth1234abcd with MAC 0a:58:0a:16:00:05.
const ATTACHMENT = [
  'add chain bridge nat cni-br-iface-abc-eth0',
  'add chain bridge nat cni-br-iface-abc-eth0-mac',
  'flush chain bridge nat cni-br-iface-abc-eth0',
  'flush chain bridge nat cni-br-iface-abc-eth0-mac',
  'add rule bridge nat PREROUTING iifname "veth1234abcd" jump cni-br-iface-abc-eth0 comment "macspoofchk-abc-eth0"',
  'add rule bridge nat cni-br-iface-abc-eth0 jump cni-br-iface-abc-eth0-mac comment "macspoofchk-abc-eth0"',
  'add rule bridge nat cni-br-iface-abc-eth0-mac ether saddr 0a:58:0a:16:00:05 return comment "macspoofchk-abc-eth0"',
  'add rule bridge nat cni-br-iface-abc-eth0-mac drop comment "macspoofchk-abc-eth0"',
  `add chain bridge nat ${NET}`,
  `add rule bridge nat ${NET} iifname "veth1234abcd" comment "macspoofchk-abc-eth0"`,
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
    planSpoofTeardown(listing, N, NET),
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
  t.equal(planSpoofTeardown({ chains: [], rules: [] }, N, NET), undefined);
  t.equal(planSpoofTeardown({ chains: [chain('PREROUTING', 1)], rules: [] }, N, NET), undefined);
  t.equal(
    planSpoofTeardown({ chains: [chain('cni-br-iface-abc-eth0-mac', 3)], rules: [] }, N, NET),
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

const iif = (name: string) => JSON.stringify([{ match: { op: '==', left: { meta: { key: 'iifname' } }, right: name } }]);
const at = (chainName: string, handle: number, comment: string, veth: string) => ({ ...rule(chainName, handle, comment), expr: iif(veth) });

t.test('setup where the marker chain exists: not declared again; an earlier marker of this attachment is replaced', async (t) => {
  const listing: NftListing = {
    chains: [chain('PREROUTING', 1), chain(NET, 2)],
    rules: [at(NET, 3, 'macspoofchk-abc-eth0', 'veth0'), at(NET, 4, 'macspoofchk-xyz-eth0', 'veth2')],
  };
  t.equal(
    planSpoofSetup(listing, N, { hostIfname: 'veth1234abcd', mac: '0a:58:0a:16:00:05' }, NET),
    [...ATTACHMENT.filter((l) => l !== `add chain bridge nat ${NET}`).slice(0, -1), `delete rule bridge nat ${NET} handle 3`, ATTACHMENT.at(-1), ''].join('\n'),
  );
});

t.test("teardown also removes this network's marker, and its chain once empty", async (t) => {
  const listing: NftListing = {
    chains: [chain('PREROUTING', 1), chain(NET, 2)],
    rules: [at(NET, 3, 'macspoofchk-abc-eth0', 'veth1'), at('cni-br-net-e25ac3845f8cbe12', 4, 'macspoofchk-abc-eth0', 'veth9')],
  };
  t.equal(planSpoofTeardown(listing, N, NET), `delete rule bridge nat ${NET} handle 3\ndelete chain bridge nat ${NET}\n`);
  const two = { ...listing, rules: [...listing.rules, at(NET, 5, 'macspoofchk-xyz-eth0', 'veth2')] };
  t.equal(planSpoofTeardown(two, N, NET), `delete rule bridge nat ${NET} handle 3\n`, 'the chain stays while it marks another attachment');
});

t.test("GC: only attachments this network's markers prove its own, when not listed", async (t) => {
  const listing: NftListing = {
    chains: [
      chain('PREROUTING', 1),
      chain(NET, 2),
      ...['abc-eth0', 'xyz-eth0', 'go-eth0', 'ree-eth0'].flatMap((r, i) => [chain(`cni-br-iface-${r}`, 10 + i), chain(`cni-br-iface-${r}-mac`, 20 + i)]),
    ],
    rules: [
      at('PREROUTING', 30, 'macspoofchk-abc-eth0', 'veth1'),
      at('PREROUTING', 31, 'macspoofchk-xyz-eth0', 'veth2'),
      at('PREROUTING', 32, 'macspoofchk-go-eth0', 'veth3'), // no marker: the Go plugin's or another network's
      at('PREROUTING', 33, 'macspoofchk-ree-eth0', 'veth5'), // re-added on another veth after a DEL that left our marker
      at(NET, 40, 'macspoofchk-abc-eth0', 'veth1'),
      at(NET, 41, 'macspoofchk-xyz-eth0', 'veth2'),
      at(NET, 42, 'macspoofchk-ree-eth0', 'veth4'),
    ],
  };
  t.equal(
    planSpoofGc(listing, NET, new Set(['macspoofchk-xyz-eth0'])),
    [
      `delete rule bridge nat ${NET} handle 40`,
      `delete rule bridge nat ${NET} handle 42`,
      'delete rule bridge nat PREROUTING handle 30',
      'flush chain bridge nat cni-br-iface-abc-eth0',
      'flush chain bridge nat cni-br-iface-abc-eth0-mac',
      'delete chain bridge nat cni-br-iface-abc-eth0',
      'delete chain bridge nat cni-br-iface-abc-eth0-mac',
      '',
    ].join('\n'),
    'abc goes; xyz is listed; go has no marker; ree only loses its stale marker',
  );
  t.equal(planSpoofGc(listing, 'cni-br-net-e25ac3845f8cbe12', new Set()), undefined, 'another network has no markers here: nothing');
  t.match(planSpoofGc(listing, NET, new Set()), `delete chain bridge nat ${NET}\n`, 'with every marker gone, the marker chain goes');
});
