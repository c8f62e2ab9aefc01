import t from 'tap';
import { parseNftListing } from '../core/nft-json.ts';
import { checkNftPortmap, planNftPortmapGc, planNftPortmapSetup, planNftPortmapTeardown, planNftPortmapTeardownOwned } from './portmap-nft-plan.ts';
import { containerAddr, type PortmapTarget } from './portmap-spec.ts';

// The config and the per-mapping rule lines are the reference's own test vectors
// (plugins/meta/portmap/portmap_nftables_test.go); the entry chains are the v1.9.0 layout
// (PR #1210: hostports_all behind `fib daddr type local`, hostIP rules in hostports).
const target: PortmapTarget = {
  network: 'test',
  containerId: 'icee6giejonei6so',
  mappings: [
    { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
    { hostPort: 8081, containerPort: 80, protocol: 'tcp' },
    { hostPort: 8080, containerPort: 81, protocol: 'udp' },
    { hostPort: 8082, containerPort: 82, protocol: 'udp' },
    { hostPort: 8083, containerPort: 83, protocol: 'tcp', hostIP: '192.168.0.2' },
    { hostPort: 8084, containerPort: 84, protocol: 'tcp', hostIP: '0.0.0.0' },
    { hostPort: 8085, containerPort: 85, protocol: 'tcp', hostIP: '2001:db8:a::1' },
    { hostPort: 8086, containerPort: 86, protocol: 'tcp', hostIP: '::' },
  ],
  snat: true,
  masqAll: false,
  markMasqBit: 13,
  conditionsV4: ['a', 'b'],
  conditionsV6: ['c', 'd'],
};
const v4 = containerAddr('10.0.0.2/24')!;
const v6 = containerAddr('2001:db8::2/64')!;

t.test('IPv4 ADD transaction', async (t) => {
  t.equal(
    planNftPortmapSetup(target, [v4]),
    `add table ip cni_hostport { comment "CNI portmap plugin" ; }
add chain ip cni_hostport hostports
add chain ip cni_hostport hostip_hostports
add chain ip cni_hostport hostports_all
flush chain ip cni_hostport hostports_all
add rule ip cni_hostport hostports_all jump hostip_hostports
add rule ip cni_hostport hostports_all jump hostports
add chain ip cni_hostport prerouting { type nat hook prerouting priority -100 ; }
flush chain ip cni_hostport prerouting
add rule ip cni_hostport prerouting a b fib daddr type local jump hostports_all
add chain ip cni_hostport output { type nat hook output priority -100 ; }
flush chain ip cni_hostport output
add rule ip cni_hostport output a b fib daddr type local jump hostports_all
add chain ip cni_hostport masquerading { type nat hook postrouting priority 100 ; }
add rule ip cni_hostport hostports tcp dport 8080 dnat to 10.0.0.2:80 comment "icee6giejonei6so"
add rule ip cni_hostport hostports tcp dport 8081 dnat to 10.0.0.2:80 comment "icee6giejonei6so"
add rule ip cni_hostport hostports udp dport 8080 dnat to 10.0.0.2:81 comment "icee6giejonei6so"
add rule ip cni_hostport hostports udp dport 8082 dnat to 10.0.0.2:82 comment "icee6giejonei6so"
add rule ip cni_hostport hostports ip daddr 192.168.0.2 tcp dport 8083 dnat to 10.0.0.2:83 comment "icee6giejonei6so"
add rule ip cni_hostport hostports tcp dport 8084 dnat to 10.0.0.2:84 comment "icee6giejonei6so"
add rule ip cni_hostport masquerading ip saddr 10.0.0.2 ip daddr 10.0.0.2 masquerade comment "icee6giejonei6so"
add rule ip cni_hostport masquerading ip saddr 127.0.0.1 ip daddr 10.0.0.2 masquerade comment "icee6giejonei6so"
add chain ip cni_hostport cni_net_ee26b0dd4af7e749
add rule ip cni_hostport cni_net_ee26b0dd4af7e749 ip daddr 10.0.0.2 comment "icee6giejonei6so"
`,
  );
});

t.test('IPv6 without snat, both families in one transaction', async (t) => {
  const lines = planNftPortmapSetup({ ...target, snat: false }, [v4, v6])
    .trim()
    .split('\n');
  const six = lines.filter((l) => / ip6 cni_hostport /.test(l));
  t.same(
    six.filter((l) => l.includes(' hostports ') && l.startsWith('add rule')),
    [
      'add rule ip6 cni_hostport hostports tcp dport 8080 dnat to [2001:db8::2]:80 comment "icee6giejonei6so"',
      'add rule ip6 cni_hostport hostports tcp dport 8081 dnat to [2001:db8::2]:80 comment "icee6giejonei6so"',
      'add rule ip6 cni_hostport hostports udp dport 8080 dnat to [2001:db8::2]:81 comment "icee6giejonei6so"',
      'add rule ip6 cni_hostport hostports udp dport 8082 dnat to [2001:db8::2]:82 comment "icee6giejonei6so"',
      'add rule ip6 cni_hostport hostports ip6 daddr 2001:db8:a::1 tcp dport 8085 dnat to [2001:db8::2]:85 comment "icee6giejonei6so"',
      'add rule ip6 cni_hostport hostports tcp dport 8086 dnat to [2001:db8::2]:86 comment "icee6giejonei6so"',
    ],
  );
  t.ok(six.includes('add rule ip6 cni_hostport prerouting c d fib daddr type local jump hostports_all'));
  t.notOk(
    lines.some((l) => l.includes('masquerad')),
    'no masquerading chain or rule without snat',
  );
});

t.test('masqAll: one rule from any source', async (t) => {
  const lines = planNftPortmapSetup({ ...target, masqAll: true }, [v4, v6])
    .split('\n')
    .filter((l) => l.includes('masquerade'));
  t.same(lines, [
    'add rule ip cni_hostport masquerading ip saddr 0.0.0.0/0 ip daddr 10.0.0.2 masquerade comment "icee6giejonei6so"',
    'add rule ip6 cni_hostport masquerading ip6 saddr ::/0 ip6 daddr 2001:db8::2 masquerade comment "icee6giejonei6so"',
  ]);
});

// `nft -j list table ip6 cni_hostport` output (nft 1.0.6) after an ADD, trimmed to what matters.
const LISTING6 = JSON.stringify({
  nftables: [
    { table: { family: 'ip6', name: 'cni_hostport', handle: 1 } },
    ...['hostports', 'hostip_hostports', 'hostports_all'].map((name, i) => ({ chain: { family: 'ip6', table: 'cni_hostport', name, handle: i + 1 } })),
    { chain: { family: 'ip6', table: 'cni_hostport', name: 'prerouting', handle: 4, type: 'nat', hook: 'prerouting', prio: -100, policy: 'accept' } },
    { chain: { family: 'ip6', table: 'cni_hostport', name: 'output', handle: 5, type: 'nat', hook: 'output', prio: -100, policy: 'accept' } },
    { chain: { family: 'ip6', table: 'cni_hostport', name: 'masquerading', handle: 6, type: 'nat', hook: 'postrouting', prio: 100, policy: 'accept' } },
    {
      rule: {
        family: 'ip6',
        table: 'cni_hostport',
        chain: 'hostports',
        handle: 10,
        comment: 'icee6giejonei6so',
        expr: [
          { match: { op: '==', left: { payload: { protocol: 'ip6', field: 'daddr' } }, right: '2001:db8:a::1' } },
          { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: 8085 } },
          { dnat: { addr: '2001:db8::2', port: 85 } },
        ],
      },
    },
    {
      rule: {
        family: 'ip6',
        table: 'cni_hostport',
        chain: 'masquerading',
        handle: 11,
        comment: 'icee6giejonei6so',
        expr: [{ masquerade: null }],
      },
    },
    { rule: { family: 'ip6', table: 'cni_hostport', chain: 'hostports', handle: 12, comment: 'other', expr: [] } },
    { rule: { family: 'ip6', table: 'cni_hostport', chain: 'cni_net_ee26b0dd4af7e749', handle: 20, comment: 'icee6giejonei6so', expr: [] } },
    { rule: { family: 'ip6', table: 'cni_hostport', chain: 'cni_net_e25ac3845f8cbe12', handle: 21, comment: 'icee6giejonei6so', expr: [] } },
  ],
});

t.test('CHECK compares every mapping of the family', async (t) => {
  const listing = parseNftListing(LISTING6);
  const one: PortmapTarget = { ...target, mappings: [target.mappings[6]!] };
  t.equal(checkNftPortmap(listing, one, v6), undefined);
  t.equal(checkNftPortmap(listing, { ...one, mappings: [{ ...target.mappings[6]!, containerPort: 86 }] }, v6), 'missing hostport rules in "hostports" chain');
  t.equal(checkNftPortmap(listing, { ...one, containerId: 'other' }, v6), 'missing hostport rules in "hostports" chain');
  t.equal(checkNftPortmap(parseNftListing('{"nftables":[]}'), one, v6), 'chain prerouting not found in table ip6 cni_hostport');
});

t.test('DEL deletes by handle the rules commented with the container id, and its marker of this network', async (t) => {
  const listing = parseNftListing(LISTING6);
  t.equal(
    planNftPortmapTeardown([listing], 'icee6giejonei6so', 'test'),
    'delete rule ip6 cni_hostport hostports handle 10\ndelete rule ip6 cni_hostport masquerading handle 11\ndelete rule ip6 cni_hostport cni_net_ee26b0dd4af7e749 handle 20\n',
  );
  t.equal(planNftPortmapTeardown([listing], 'nobody', 'test'), undefined);
});

// Three containers' rules in one table: `icee6giejonei6so` with a marker of network "test";
// `other` with a marker of network "other" (chain cni_net_e25ac3845f8cbe12); `gone` with none,
// as the Go plugin writes them. The same container id also has a rule on network "other"'s
// address (a pod on two networks).
const rule = (chain: string, handle: number, comment: string, expr: unknown[]) => ({
  rule: { family: 'ip6', table: 'cni_hostport', chain, handle, comment, expr },
});
const daddr = (a: string) => ({ match: { op: '==', left: { payload: { protocol: 'ip6', field: 'daddr' } }, right: a } });
const dnat = (a: string, port: number) => [
  { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: port } },
  { dnat: { addr: a, port: 80 } },
];
const SHARED = parseNftListing(
  JSON.stringify({
    nftables: [
      rule('hostports', 10, 'icee6giejonei6so', dnat('2001:db8::2', 8080)),
      rule('masquerading', 11, 'icee6giejonei6so', [
        { match: { op: '==', left: { payload: { protocol: 'ip6', field: 'saddr' } }, right: '2001:db8::2' } },
        daddr('2001:db8::2'),
        { masquerade: null },
      ]),
      rule('hostports', 12, 'icee6giejonei6so', dnat('2001:db8:1::9', 8081)),
      rule('hostports', 13, 'other', dnat('2001:db8:1::3', 8082)),
      rule('hostports', 14, 'gone', dnat('2001:db8::7', 8083)),
      rule('cni_net_ee26b0dd4af7e749', 20, 'icee6giejonei6so', [daddr('2001:db8::2')]),
      rule('cni_net_e25ac3845f8cbe12', 21, 'other', [daddr('2001:db8:1::3')]),
      rule('cni_net_e25ac3845f8cbe12', 22, 'icee6giejonei6so', [daddr('2001:db8:1::9')]),
    ],
  }),
);

t.test('GC removes only what the network marked as its own, for containers not listed', async (t) => {
  t.equal(
    planNftPortmapGc([SHARED], new Set(), 'test'),
    'delete rule ip6 cni_hostport cni_net_ee26b0dd4af7e749 handle 20\ndelete rule ip6 cni_hostport hostports handle 10\ndelete rule ip6 cni_hostport masquerading handle 11\n',
    "network test: its container's marker and rules on its address; not the same id's rule on other's address, not other's, not the unmarked one",
  );
  t.equal(planNftPortmapGc([SHARED], new Set(['icee6giejonei6so']), 'test'), undefined, 'a listed container keeps everything');
  t.equal(
    planNftPortmapGc([SHARED], new Set(['icee6giejonei6so']), 'other'),
    'delete rule ip6 cni_hostport cni_net_e25ac3845f8cbe12 handle 21\ndelete rule ip6 cni_hostport hostports handle 13\n',
  );
  t.equal(planNftPortmapGc([SHARED], new Set(), 'never-used-nft'), undefined, 'a network without markers removes nothing');
});

t.test("DEL without mappings removes what the network marked as this container's, nothing of another network or container", async (t) => {
  t.equal(
    planNftPortmapTeardownOwned([SHARED], 'icee6giejonei6so', 'test'),
    'delete rule ip6 cni_hostport cni_net_ee26b0dd4af7e749 handle 20\ndelete rule ip6 cni_hostport hostports handle 10\ndelete rule ip6 cni_hostport masquerading handle 11\n',
    "network test: the container's marker and rules on its address; not the same id's rule on other's address",
  );
  t.equal(
    planNftPortmapTeardownOwned([SHARED], 'icee6giejonei6so', 'other'),
    'delete rule ip6 cni_hostport cni_net_e25ac3845f8cbe12 handle 22\ndelete rule ip6 cni_hostport hostports handle 12\n',
    "network other: only the same id's rule on its own address",
  );
  t.equal(
    planNftPortmapTeardownOwned([SHARED], 'gone', 'test'),
    undefined,
    'rules without a marker (the Go plugin writes none) stay, as the reference leaves them',
  );
  t.equal(planNftPortmapTeardownOwned([SHARED], 'icee6giejonei6so', 'never-used-nft'), undefined, 'a network without markers removes nothing');
});
