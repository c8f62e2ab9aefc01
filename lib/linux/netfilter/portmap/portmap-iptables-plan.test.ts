import t from 'tap';
import { parseSavedNat } from '../core/iptables-save.ts';
import { portmapDnatChainName, portmapDnatComment, portmapOldSnatChainName } from '../core/names.ts';
import {
  checkIptablesPortmap,
  planIptablesPortmapCreate,
  planIptablesPortmapDelete,
  planIptablesPortmapSetup,
  planIptablesPortmapTeardown,
  portmapChains,
  selectIptablesPortmapGcChains,
} from './portmap-iptables-plan.ts';
import { containerAddr, type PortmapTarget } from './portmap-spec.ts';

// Expected text: `iptables-save -t nat` / `ip6tables-save -t nat` after Debian's Go portmap
// v1.1.1 ran ADD with this very config (network testNetName, container icee6giejonei6so,
// 10.0.0.2/24 and 2001:db8::2/64, conditionsV4 ["-m","comment","--comment","x y"]).
const target: PortmapTarget = {
  network: 'testNetName',
  containerId: 'icee6giejonei6so',
  mappings: [
    { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
    { hostPort: 8081, containerPort: 80, protocol: 'tcp' },
    { hostPort: 8080, containerPort: 81, protocol: 'udp' },
    { hostPort: 8082, containerPort: 82, protocol: 'udp' },
    { hostPort: 8083, containerPort: 83, protocol: 'tcp', hostIP: '192.168.0.2' },
    { hostPort: 8084, containerPort: 84, protocol: 'tcp', hostIP: '0.0.0.0' },
    { hostPort: 8085, containerPort: 85, protocol: 'tcp', hostIP: '2001:db8:a::1' },
    { hostPort: 8086, containerPort: 86, protocol: 'sctp', hostIP: '::' },
  ],
  snat: true,
  masqAll: false,
  markMasqBit: 13,
  conditionsV4: ['-m', 'comment', '--comment', 'x y'],
  conditionsV6: [],
};
const v4 = containerAddr('10.0.0.2/24')!;
const v6 = containerAddr('2001:db8::2/64')!;

const GO_V4 = `*nat
:PREROUTING ACCEPT [0:0]
:INPUT ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:POSTROUTING ACCEPT [0:0]
:CNI-DN-51b71743a65c4681a1e18 - [0:0]
:CNI-HOSTPORT-DNAT - [0:0]
:CNI-HOSTPORT-MASQ - [0:0]
:CNI-HOSTPORT-SETMARK - [0:0]
-A PREROUTING -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT
-A OUTPUT -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT
-A POSTROUTING -m comment --comment "CNI portfwd requiring masquerade" -j CNI-HOSTPORT-MASQ
-A CNI-DN-51b71743a65c4681a1e18 -s 10.0.0.0/24 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -s 127.0.0.1/32 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80
-A CNI-DN-51b71743a65c4681a1e18 -s 10.0.0.0/24 -p tcp -m tcp --dport 8081 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -s 127.0.0.1/32 -p tcp -m tcp --dport 8081 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8081 -j DNAT --to-destination 10.0.0.2:80
-A CNI-DN-51b71743a65c4681a1e18 -s 10.0.0.0/24 -p udp -m udp --dport 8080 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -s 127.0.0.1/32 -p udp -m udp --dport 8080 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p udp -m udp --dport 8080 -j DNAT --to-destination 10.0.0.2:81
-A CNI-DN-51b71743a65c4681a1e18 -s 10.0.0.0/24 -p udp -m udp --dport 8082 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -s 127.0.0.1/32 -p udp -m udp --dport 8082 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p udp -m udp --dport 8082 -j DNAT --to-destination 10.0.0.2:82
-A CNI-DN-51b71743a65c4681a1e18 -s 10.0.0.0/24 -d 192.168.0.2/32 -p tcp -m tcp --dport 8083 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -s 127.0.0.1/32 -d 192.168.0.2/32 -p tcp -m tcp --dport 8083 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -d 192.168.0.2/32 -p tcp -m tcp --dport 8083 -j DNAT --to-destination 10.0.0.2:83
-A CNI-DN-51b71743a65c4681a1e18 -s 10.0.0.0/24 -p tcp -m tcp --dport 8084 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -s 127.0.0.1/32 -p tcp -m tcp --dport 8084 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8084 -j DNAT --to-destination 10.0.0.2:84
-A CNI-HOSTPORT-DNAT -p sctp -m comment --comment "dnat name: \\"testNetName\\" id: \\"icee6giejonei6so\\"" -m multiport --dports 8086 -m comment --comment "x y" -j CNI-DN-51b71743a65c4681a1e18
-A CNI-HOSTPORT-DNAT -p tcp -m comment --comment "dnat name: \\"testNetName\\" id: \\"icee6giejonei6so\\"" -m multiport --dports 8080,8081,8083,8084,8085 -m comment --comment "x y" -j CNI-DN-51b71743a65c4681a1e18
-A CNI-HOSTPORT-DNAT -p udp -m comment --comment "dnat name: \\"testNetName\\" id: \\"icee6giejonei6so\\"" -m multiport --dports 8080,8082 -m comment --comment "x y" -j CNI-DN-51b71743a65c4681a1e18
-A CNI-HOSTPORT-MASQ -m mark --mark 0x2000/0x2000 -j MASQUERADE
-A CNI-HOSTPORT-SETMARK -m comment --comment "CNI portfwd masquerade mark" -j MARK --set-xmark 0x2000/0x2000
COMMIT
`;

const GO_V6_CHAIN = `-A CNI-DN-51b71743a65c4681a1e18 -s 2001:db8::/64 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8080 -j DNAT --to-destination [2001:db8::2]:80
-A CNI-DN-51b71743a65c4681a1e18 -s 2001:db8::/64 -p tcp -m tcp --dport 8081 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8081 -j DNAT --to-destination [2001:db8::2]:80
-A CNI-DN-51b71743a65c4681a1e18 -s 2001:db8::/64 -p udp -m udp --dport 8080 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p udp -m udp --dport 8080 -j DNAT --to-destination [2001:db8::2]:81
-A CNI-DN-51b71743a65c4681a1e18 -s 2001:db8::/64 -p udp -m udp --dport 8082 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p udp -m udp --dport 8082 -j DNAT --to-destination [2001:db8::2]:82
-A CNI-DN-51b71743a65c4681a1e18 -s 2001:db8::/64 -d 2001:db8:a::1/128 -p tcp -m tcp --dport 8085 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -d 2001:db8:a::1/128 -p tcp -m tcp --dport 8085 -j DNAT --to-destination [2001:db8::2]:85
-A CNI-DN-51b71743a65c4681a1e18 -s 2001:db8::/64 -p sctp -m sctp --dport 8086 -j CNI-HOSTPORT-SETMARK
-A CNI-DN-51b71743a65c4681a1e18 -p sctp -m sctp --dport 8086 -j DNAT --to-destination [2001:db8::2]:86
-A CNI-HOSTPORT-DNAT -p sctp -m comment --comment "dnat name: \\"testNetName\\" id: \\"icee6giejonei6so\\"" -m multiport --dports 8086 -j CNI-DN-51b71743a65c4681a1e18
-A CNI-HOSTPORT-DNAT -p tcp -m comment --comment "dnat name: \\"testNetName\\" id: \\"icee6giejonei6so\\"" -m multiport --dports 8080,8081,8083,8084,8085 -j CNI-DN-51b71743a65c4681a1e18
-A CNI-HOSTPORT-DNAT -p udp -m comment --comment "dnat name: \\"testNetName\\" id: \\"icee6giejonei6so\\"" -m multiport --dports 8080,8082 -j CNI-DN-51b71743a65c4681a1e18`;

const ruleLines = (text: string, re: RegExp) => text.split('\n').filter((l) => l.startsWith('-A ') && re.test(l));

t.test('chain names are the reference test vectors', async (t) => {
  const long = 'icee6giejonei6sohng6ahngee7laquohquee9shiGo7fohferakah3Feiyoolu2pei7ciPhoh7shaoX6vai3vuf0ahfaeng8yohb9ceu0daez5hashee8ooYai5wa3y';
  t.equal(portmapDnatChainName('testNetName', long), 'CNI-DN-bfd599665540dd91d5d28');
  t.equal(portmapDnatChainName('test', long), 'CNI-DN-67e92b96e692a494b6b85');
  t.equal(portmapOldSnatChainName('testNetName', long), 'CNI-SN-bfd599665540dd91d5d28');
  t.equal(portmapDnatChainName('testNetName', 'icee6giejonei6so'), 'CNI-DN-51b71743a65c4681a1e18');
});

t.test('the blind create plan writes what the Go plugin leaves, rule for rule', async (t) => {
  const plan = planIptablesPortmapCreate(target, v4);
  const chainAndEntries = /^-A (CNI-DN-|CNI-HOSTPORT-DNAT )/;
  t.same(ruleLines(plan, chainAndEntries), ruleLines(GO_V4, chainAndEntries));
  const lines = plan.split('\n');
  t.equal(lines[0], '*nat');
  t.equal(lines[1], '-N CNI-DN-51b71743a65c4681a1e18', 'the chain is created, not declared: an existing one refuses the plan');
  t.same(
    lines.slice(2, 4),
    [
      '-C CNI-HOSTPORT-SETMARK -m comment --comment "CNI portfwd masquerade mark" -j MARK --set-xmark 0x2000/0x2000',
      '-C CNI-HOSTPORT-MASQ -m mark --mark 0x2000/0x2000 -j MASQUERADE',
    ],
    'the shared mark rules are checked, not rewritten: a missing one refuses the plan',
  );
  t.notOk(
    lines.some((l) => l.startsWith('-D ') || l.startsWith('-X ') || l.startsWith('-F ')),
    'nothing is deleted: the commit need not wait for a grace period',
  );
  t.same(ruleLines(planIptablesPortmapCreate(target, v6), chainAndEntries), GO_V6_CHAIN.split('\n'));
});

t.test('from an empty table the setup plan creates the shared chains as the Go plugin does', async (t) => {
  const empty = parseSavedNat('*nat\n:PREROUTING ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]\nCOMMIT\n');
  const plan = planIptablesPortmapSetup(empty, target, v4);
  t.same(
    plan
      .split('\n')
      .filter((l) => l.startsWith(':'))
      .sort(),
    GO_V4.split('\n')
      .filter((l) => /^:CNI-/.test(l))
      .sort(),
  );
  const added = plan.split('\n').filter((l) => /^-[AI] /.test(l));
  t.same(
    added.map((l) => l.replace(/^-I POSTROUTING 1 /, '-A POSTROUTING ')).sort(),
    ruleLines(GO_V4, /./).sort(),
    'every rule of the Go layout, and no other',
  );
  t.ok(added.includes('-I POSTROUTING 1 -m comment --comment "CNI portfwd requiring masquerade" -j CNI-HOSTPORT-MASQ'), 'masquerade jump first in POSTROUTING');
});

t.test('over the Go plugin state the setup plan only rebuilds the container chain', async (t) => {
  const plan = planIptablesPortmapSetup(parseSavedNat(GO_V4), target, v4);
  const lines = plan.split('\n');
  t.same(
    lines.filter((l) => l.startsWith(':')),
    [':CNI-DN-51b71743a65c4681a1e18 - [0:0]'],
  );
  t.same(
    lines.filter((l) => l.startsWith('-D')),
    ruleLines(GO_V4, /^-A CNI-HOSTPORT-DNAT /).map((l) => `-D${l.slice(2)}`),
  );
  t.notOk(
    lines.some((l) => /PREROUTING|OUTPUT|POSTROUTING|SETMARK -m|MASQ -m/.test(l)),
    'shared rules already there',
  );
});

t.test('externalSetMarkChain replaces the mark chains; masqAll matches every source', async (t) => {
  const ext = planIptablesPortmapCreate({ ...target, mappings: target.mappings.slice(0, 1), externalSetMarkChain: 'KUBE-MARK-MASQ', conditionsV4: [] }, v4);
  t.same(ruleLines(ext, /^-A CNI-DN-/), [
    '-A CNI-DN-51b71743a65c4681a1e18 -s 10.0.0.0/24 -p tcp -m tcp --dport 8080 -j KUBE-MARK-MASQ',
    '-A CNI-DN-51b71743a65c4681a1e18 -s 127.0.0.1/32 -p tcp -m tcp --dport 8080 -j KUBE-MARK-MASQ',
    '-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80',
  ]);
  t.notOk(/HOSTPORT-SETMARK|HOSTPORT-MASQ/.test(ext));
  const all = planIptablesPortmapCreate({ ...target, mappings: target.mappings.slice(0, 1), masqAll: true, markMasqBit: 5 }, v4);
  t.same(ruleLines(all, /^-A CNI-DN-/), [
    '-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8080 -j CNI-HOSTPORT-SETMARK',
    '-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80',
  ]);
  t.match(all, '--set-xmark 0x20/0x20', 'mark bit 5 as in the reference test');
  const nosnat = planIptablesPortmapCreate({ ...target, mappings: target.mappings.slice(0, 1), snat: false }, v4);
  t.same(ruleLines(nosnat, /^-A CNI-DN-/), ['-A CNI-DN-51b71743a65c4681a1e18 -p tcp -m tcp --dport 8080 -j DNAT --to-destination 10.0.0.2:80']);
});

t.test('more than 15 host ports of a protocol are split over several jumps', async (t) => {
  const mappings = Array.from({ length: 17 }, (_, i) => ({ hostPort: 9000 + i, containerPort: 80, protocol: 'tcp' as const }));
  const entries = ruleLines(planIptablesPortmapCreate({ ...target, mappings, conditionsV4: [] }, v4), /^-A CNI-HOSTPORT-DNAT /);
  t.equal(entries.length, 2);
  t.match(entries[0], '--dports 9000,9001,9002,9003,9004,9005,9006,9007,9008,9009,9010,9011,9012,9013,9014 -j');
  t.match(entries[1], '--dports 9015,9016 -j');
});

t.test('teardown removes the chain, its jumps and the legacy SNAT chain; nothing when absent', async (t) => {
  const saved = parseSavedNat(GO_V4);
  const chains = portmapChains('testNetName', 'icee6giejonei6so');
  const plan = planIptablesPortmapTeardown(saved, chains)!;
  const lines = plan.split('\n');
  t.same(
    lines.filter((l) => l.startsWith('-D')),
    ruleLines(GO_V4, /^-A CNI-HOSTPORT-DNAT /).map((l) => `-D${l.slice(2)}`),
  );
  t.same(
    lines.filter((l) => /^-[FX]/.test(l)),
    ['-F CNI-DN-51b71743a65c4681a1e18', '-X CNI-DN-51b71743a65c4681a1e18'],
  );
  t.equal(planIptablesPortmapTeardown(saved, portmapChains('testNetName', 'other')), undefined);
  const legacy = parseSavedNat(
    '*nat\n:CNI-HOSTPORT-SNAT - [0:0]\n:CNI-SN-51b71743a65c4681a1e18 - [0:0]\n-A CNI-HOSTPORT-SNAT -j CNI-SN-51b71743a65c4681a1e18\nCOMMIT\n',
  );
  t.same(
    planIptablesPortmapTeardown(legacy, chains)!
      .split('\n')
      .filter((l) => /^-[DFX]/.test(l)),
    ['-D CNI-HOSTPORT-SNAT -j CNI-SN-51b71743a65c4681a1e18', '-F CNI-SN-51b71743a65c4681a1e18', '-X CNI-SN-51b71743a65c4681a1e18'],
  );
});

t.test('CHECK passes on the Go state and names what is missing', async (t) => {
  t.equal(checkIptablesPortmap(parseSavedNat(GO_V4), target, v4), undefined);
  const noDnat = GO_V4.split('\n')
    .filter((l) => !l.includes('--to-destination 10.0.0.2:82'))
    .join('\n');
  t.match(
    checkIptablesPortmap(parseSavedNat(noDnat), target, v4),
    /^rule -p udp -m udp --dport 8082 -j DNAT --to-destination 10.0.0.2:82 in chain CNI-DN-51b71743a65c4681a1e18 not found in table nat$/,
  );
  const noEntry = GO_V4.split('\n')
    .filter((l) => !l.includes('--dports 8080,8082'))
    .join('\n');
  t.match(checkIptablesPortmap(parseSavedNat(noEntry), target, v4), /CNI-HOSTPORT-DNAT not found/);
  t.equal(checkIptablesPortmap(parseSavedNat('*nat\nCOMMIT\n'), target, v4), 'chain CNI-DN-51b71743a65c4681a1e18 not found in iptables table nat');
});

t.test('GC picks the chains of this network whose container is gone', async (t) => {
  const saved = parseSavedNat(GO_V4);
  t.same(selectIptablesPortmapGcChains(saved, 'testNetName', new Set()), ['CNI-DN-51b71743a65c4681a1e18']);
  t.same(selectIptablesPortmapGcChains(saved, 'testNetName', new Set(['icee6giejonei6so'])), []);
  t.same(selectIptablesPortmapGcChains(saved, 'othernet', new Set()), [], 'another network keeps its chains');
});

t.test('an over-long entry comment is cut to what the kernel keeps', async (t) => {
  const c = portmapDnatComment('n', 'x'.repeat(300));
  t.equal(c.length, 255);
  t.ok(c.endsWith('...'));
});

t.test('the blind delete names exactly the jumps the Go plugin left, then the chain', async (t) => {
  const lines = planIptablesPortmapDelete(target, 4).split('\n');
  t.same(
    lines.filter((l) => l.startsWith('-D')),
    ruleLines(GO_V4, /^-A CNI-HOSTPORT-DNAT /).map((l) => `-D${l.slice(2)}`),
  );
  t.same(
    lines.filter((l) => /^-[FX]/.test(l)),
    ['-F CNI-DN-51b71743a65c4681a1e18', '-X CNI-DN-51b71743a65c4681a1e18'],
  );
});
