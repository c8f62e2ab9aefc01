import t from 'tap';
import { masqTableReady, planNftMasqGc, planNftMasqSetup, planNftMasqTeardown } from './masq-nft-plan.ts';
import { nftMasqComment } from '../core/names.ts';
import { parseNftListing, type NftListing, type NftRule } from '../core/nft-json.ts';
import { parseMasqAddrs } from '../core/validate.ts';

const T = 'inet cni_plugins_masquerade';
const rule = (handle: number, comment: string | undefined, chain = 'masq_checks'): NftRule => ({
  family: 'inet',
  table: 'cni_plugins_masquerade',
  chain,
  handle,
  comment,
  expr: '[]',
});
const listing = (rules: NftRule[]): NftListing => ({ chains: [], rules });

t.test('setup: table, chains, rebuilt postrouting and one rule per address, in one script', async (t) => {
  const script = planNftMasqSetup(listing([]), { network: 'unit-test', ifname: 'eth0', containerId: 'one' }, parseMasqAddrs(['192.168.1.1/24', 'fd00::1/64']));
  t.equal(
    script,
    [
      `add table ${T} { comment "Masquerading for plugins from github.com/containernetworking/plugins" ; }`,
      `add chain ${T} masq_checks { comment "Masquerade traffic from certain IPs to any (non-multicast) IP outside their subnet" ; }`,
      `add chain ${T} postrouting { type nat hook postrouting priority srcnat ; }`,
      `flush chain ${T} postrouting`,
      `add rule ${T} postrouting ip daddr == 224.0.0.0/4 return`,
      `add rule ${T} postrouting ip6 daddr == ff00::/8 return`,
      `add rule ${T} postrouting goto masq_checks`,
      // the rule text of the reference's own test for this attachment
      `add rule ${T} masq_checks ip saddr == 192.168.1.1 ip daddr != 192.168.1.0/24 masquerade comment "6fd94d501e58f0aa-287fc69eff0574a2, net: unit-test, if: eth0, id: one"`,
      `add rule ${T} masq_checks ip6 saddr == fd00::1 ip6 daddr != fd00::/64 masquerade comment "6fd94d501e58f0aa-287fc69eff0574a2, net: unit-test, if: eth0, id: one"`,
      '',
    ].join('\n'),
  );
});

t.test('setup replaces the same attachment’s earlier rules and leaves others alone', async (t) => {
  const existing = [
    rule(5, nftMasqComment('unit-test', 'eth0', 'one')),
    rule(6, nftMasqComment('unit-test', 'eth0', 'two')),
    rule(7, nftMasqComment('unit-test', 'eth1', 'one')),
    rule(8, nftMasqComment('unit-test', 'eth0', 'one')),
  ];
  const script = planNftMasqSetup(listing(existing), { network: 'unit-test', ifname: 'eth0', containerId: 'one' }, parseMasqAddrs(['192.168.1.1/24']));
  t.match(script, `delete rule ${T} masq_checks handle 5\ndelete rule ${T} masq_checks handle 8\nadd rule`);
  t.notMatch(script, 'handle 6');
  t.notMatch(script, 'handle 7');
});

t.test('teardown deletes by handle the rules of this network, ifname and container id', async (t) => {
  const existing = [
    rule(5, nftMasqComment('unit-test', 'eth0', 'one')),
    rule(6, nftMasqComment('unit-test', 'eth0', 'four')), // reused the same address: must stay
    rule(7, nftMasqComment('alternate', 'eth0', 'one')),
    rule(9, undefined),
    rule(10, nftMasqComment('unit-test', 'eth0', 'one'), 'postrouting'),
  ];
  t.equal(planNftMasqTeardown(existing, 'unit-test', 'eth0', 'one'), `delete rule ${T} masq_checks handle 5\n`);
  t.equal(planNftMasqTeardown(existing, 'unit-test', 'eth9', 'one'), undefined);
  t.equal(planNftMasqTeardown([], 'unit-test', 'eth0', 'one'), undefined);
});

t.test('GC keeps valid attachments of the network and never touches other networks', async (t) => {
  // The reference test's state after "one" was removed and "four" added.
  const existing = [
    rule(2, nftMasqComment('unit-test', 'eth0', 'two')),
    rule(3, nftMasqComment('unit-test', 'eth0', 'three')),
    rule(4, nftMasqComment('alternate', 'net1', 'three')),
    rule(5, nftMasqComment('unit-test', 'eth0', 'four')),
  ];
  const valid = [
    { ifname: 'eth0', containerID: 'two' },
    { ifname: 'eth0', containerID: 'three' },
    { ifname: 'eth0', containerID: 'one' },
  ];
  t.equal(planNftMasqGc(existing, 'unit-test', valid), `delete rule ${T} masq_checks handle 5\n`);
  t.equal(planNftMasqGc(existing, 'alternate', [{ ifname: 'net1', containerID: 'three' }]), undefined);
  t.equal(planNftMasqGc(existing, 'alternate', []), `delete rule ${T} masq_checks handle 4\n`);
  t.equal(
    planNftMasqGc(existing, 'unit-test', [{ ifname: 'net1', containerID: 'two' }]),
    [2, 3, 5].map((h) => `delete rule ${T} masq_checks handle ${h}\n`).join(''),
    'the ifname is part of the attachment',
  );
});

// What `nft -j list table inet cni_plugins_masquerade` printed here (nft 1.0.6) after a setup.
const READY = JSON.stringify({
  nftables: [
    { metainfo: { version: '1.0.6', release_name: 'Lester Gooch #5', json_schema_version: 1 } },
    { table: { family: 'inet', name: 'cni_plugins_masquerade', handle: 4, comment: 'Masquerading for plugins from github.com/containernetworking/plugins' } },
    {
      chain: {
        family: 'inet',
        table: 'cni_plugins_masquerade',
        name: 'masq_checks',
        handle: 1,
        comment: 'Masquerade traffic from certain IPs to any (non-multicast) IP outside their subnet',
      },
    },
    {
      chain: { family: 'inet', table: 'cni_plugins_masquerade', name: 'postrouting', handle: 2, type: 'nat', hook: 'postrouting', prio: 100, policy: 'accept' },
    },
    {
      rule: {
        family: 'inet',
        table: 'cni_plugins_masquerade',
        chain: 'masq_checks',
        handle: 6,
        comment: '6fd94d501e58f0aa-287fc69eff0574a2, net: unit-test, if: eth0, id: one',
        expr: [
          { match: { op: '==', left: { payload: { protocol: 'ip', field: 'saddr' } }, right: '192.168.1.1' } },
          { match: { op: '!=', left: { payload: { protocol: 'ip', field: 'daddr' } }, right: { prefix: { addr: '192.168.1.0', len: 24 } } } },
          { masquerade: null },
        ],
      },
    },
    {
      rule: {
        family: 'inet',
        table: 'cni_plugins_masquerade',
        chain: 'postrouting',
        handle: 8,
        expr: [
          { match: { op: '==', left: { payload: { protocol: 'ip', field: 'daddr' } }, right: { prefix: { addr: '224.0.0.0', len: 4 } } } },
          { return: null },
        ],
      },
    },
    {
      rule: {
        family: 'inet',
        table: 'cni_plugins_masquerade',
        chain: 'postrouting',
        handle: 9,
        expr: [
          { match: { op: '==', left: { payload: { protocol: 'ip6', field: 'daddr' } }, right: { prefix: { addr: 'ff00::', len: 8 } } } },
          { return: null },
        ],
      },
    },
    { rule: { family: 'inet', table: 'cni_plugins_masquerade', chain: 'postrouting', handle: 10, expr: [{ goto: { target: 'masq_checks' } }] } },
  ],
});

t.test('a table already in place: the setup only swaps the attachment’s rules', async (t) => {
  const ready = parseNftListing(READY);
  t.equal(masqTableReady(ready), true);
  t.equal(
    planNftMasqSetup(ready, { network: 'unit-test', ifname: 'eth0', containerId: 'one' }, parseMasqAddrs(['192.168.1.1/24'])),
    `delete rule ${T} masq_checks handle 6\nadd rule ${T} masq_checks ip saddr == 192.168.1.1 ip daddr != 192.168.1.0/24 masquerade comment "6fd94d501e58f0aa-287fc69eff0574a2, net: unit-test, if: eth0, id: one"\n`,
  );
});

t.test('a postrouting chain that is not exactly the three rules is rebuilt', async (t) => {
  type Item = Record<string, { handle?: number; name?: string } | undefined>;
  const doc = JSON.parse(READY) as { nftables: Item[] };
  const without = (pred: (i: Item) => boolean) => parseNftListing(JSON.stringify({ nftables: doc.nftables.filter((i) => !pred(i)) }));
  const dup = parseNftListing(JSON.stringify({ nftables: [...doc.nftables, doc.nftables.at(-1)] }));
  for (const [why, l] of [
    ['goto missing', without((i) => i['rule']?.handle === 10)],
    ['goto twice', dup],
    ['masq_checks missing', without((i) => i['chain']?.name === 'masq_checks')],
    ['postrouting missing', without((i) => i['chain']?.name === 'postrouting')],
    ['nothing', listing([])],
  ] as const) {
    t.equal(masqTableReady(l), false, why);
    t.match(
      planNftMasqSetup(l, { network: 'unit-test', ifname: 'eth0', containerId: 'one' }, parseMasqAddrs(['192.168.1.1/24'])),
      `flush chain ${T} postrouting\n`,
      why,
    );
  }
});
