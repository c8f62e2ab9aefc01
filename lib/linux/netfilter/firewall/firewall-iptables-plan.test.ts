import t from 'tap';
import { readFileSync } from 'node:fs';
import {
  chainNamesAddresses,
  checkIptablesFirewall,
  planIptablesFirewallAppend,
  planIptablesFirewallNetlinkAppend,
  planIptablesFirewallNetlinkDelete,
  planIptablesFirewallSetup,
  planIptablesFirewallTeardown,
} from './firewall-iptables-plan.ts';
import type { FirewallTarget } from './firewall-spec.ts';
import { parseSavedTable } from '../core/iptables-save.ts';
import { decodeRule, type NftKernelRule } from '../core/nft-rule-dump.ts';
import { podTarget } from './fixtures/firewall-target.ts';

const target = (o: Partial<FirewallTarget> = {}): FirewallTarget => podTarget({ ingressPolicy: 'same-bridge', bridge: 'cni0', ...o });

// iptables-save -t filter after the Go firewall v1.1.1 ADD of this very target (ingressPolicy same-bridge).
const GO_V4 = `*filter
:INPUT ACCEPT [0:0]
:FORWARD ACCEPT [0:0]
:OUTPUT ACCEPT [0:0]
:CNI-ADMIN - [0:0]
:CNI-FORWARD - [0:0]
:CNI-ISOLATION-STAGE-1 - [0:0]
:CNI-ISOLATION-STAGE-2 - [0:0]
-A FORWARD -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j CNI-ISOLATION-STAGE-1
-A FORWARD -m comment --comment "CNI firewall plugin rules" -j CNI-FORWARD
-A CNI-FORWARD -m comment --comment "CNI firewall plugin admin overrides" -j CNI-ADMIN
-A CNI-FORWARD -d 10.88.0.2/32 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A CNI-FORWARD -s 10.88.0.2/32 -j ACCEPT
-A CNI-ISOLATION-STAGE-1 -i cni0 ! -o cni0 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j CNI-ISOLATION-STAGE-2
-A CNI-ISOLATION-STAGE-1 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j RETURN
-A CNI-ISOLATION-STAGE-2 -o cni0 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j DROP
-A CNI-ISOLATION-STAGE-2 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j RETURN
COMMIT
`;
const EMPTY = parseSavedTable('*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\nCOMMIT\n', 'filter');

t.test("on an empty table: the reference's chains and rules, in its order of steps", async (t) => {
  t.equal(
    planIptablesFirewallSetup(EMPTY, target(), 4),
    [
      '*filter',
      ':CNI-FORWARD - [0:0]',
      ':CNI-ADMIN - [0:0]',
      '-I FORWARD 1 -m comment --comment "CNI firewall plugin rules" -j CNI-FORWARD',
      '-I CNI-FORWARD 1 -m comment --comment "CNI firewall plugin admin overrides" -j CNI-ADMIN',
      '-A CNI-FORWARD -d 10.88.0.2/32 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
      '-A CNI-FORWARD -s 10.88.0.2/32 -j ACCEPT',
      ':CNI-ISOLATION-STAGE-1 - [0:0]',
      ':CNI-ISOLATION-STAGE-2 - [0:0]',
      '-I FORWARD 1 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j CNI-ISOLATION-STAGE-1',
      '-I CNI-ISOLATION-STAGE-1 1 -i cni0 ! -o cni0 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j CNI-ISOLATION-STAGE-2',
      '-A CNI-ISOLATION-STAGE-1 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j RETURN',
      '-I CNI-ISOLATION-STAGE-2 1 -o cni0 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j DROP',
      '-A CNI-ISOLATION-STAGE-2 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j RETURN',
      'COMMIT',
      '',
    ].join('\n'),
  );
  t.match(planIptablesFirewallSetup(EMPTY, target(), 6), /-A CNI-FORWARD -d fd00::2\/128 -m conntrack/);
});

t.test("what the Go plugin wrote is what we would write: nothing to add, CHECK passes, DEL removes the pod's two rules", async (t) => {
  const saved = parseSavedTable(GO_V4, 'filter');
  t.equal(planIptablesFirewallSetup(saved, target(), 4), undefined);
  t.equal(checkIptablesFirewall(saved, target(), 4), undefined);
  t.equal(
    planIptablesFirewallTeardown(saved, target(), 4),
    '*filter\n-D CNI-FORWARD -d 10.88.0.2/32 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT\n-D CNI-FORWARD -s 10.88.0.2/32 -j ACCEPT\nCOMMIT\n',
  );
  t.match(checkIptablesFirewall(saved, target({ addrs: [{ family: 4, ip: '10.88.0.3' }] }), 4), /expected rule "CNI-FORWARD -d 10\.88\.0\.3\/32/);
});

t.test('a second bridge gets its isolation rules on top; the shared ones are not repeated', async (t) => {
  const plan = planIptablesFirewallSetup(parseSavedTable(GO_V4, 'filter'), target({ bridge: 'cni1', addrs: [{ family: 4, ip: '10.89.0.2' }] }), 4);
  t.same(plan?.split('\n').slice(1, -2), [
    '-A CNI-FORWARD -d 10.89.0.2/32 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT',
    '-A CNI-FORWARD -s 10.89.0.2/32 -j ACCEPT',
    '-I CNI-ISOLATION-STAGE-1 1 -i cni1 ! -o cni1 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j CNI-ISOLATION-STAGE-2',
    '-I CNI-ISOLATION-STAGE-2 1 -o cni1 -m comment --comment "CNI firewall plugin rules (ingressPolicy: same-bridge)" -j DROP',
  ]);
});

t.test('iptablesAdminChainName names the chain CNI-FORWARD jumps to first', async (t) => {
  t.match(
    planIptablesFirewallSetup(EMPTY, target({ adminChain: 'MY-ADMIN', ingressPolicy: 'open' }), 4),
    /:MY-ADMIN - \[0:0\]\n.*\n-I CNI-FORWARD 1 .* -j MY-ADMIN\n/,
  );
});

t.test('CHECK also wants the same-bridge rules (the reference checks only the accept rules)', async (t) => {
  const noIsolation = parseSavedTable(
    GO_V4.split('\n')
      .filter((l) => !l.includes('-o cni0 -m comment'))
      .join('\n'),
    'filter',
  );
  t.match(checkIptablesFirewall(noIsolation, target(), 4), /expected rule "CNI-ISOLATION-STAGE-1 -i cni0 ! -o cni0 .* not found/);
  t.equal(checkIptablesFirewall(noIsolation, target({ ingressPolicy: 'open' }), 4), undefined);
});

t.test("the unread ADD checks the shared rules the reference writes and appends the pod's", async (t) => {
  const text = planIptablesFirewallAppend(target(), 4) ?? '';
  const lines = text.split('\n');
  t.same([lines[0], lines.at(-2), lines.at(-1)], ['*filter', 'COMMIT', ''], 'one transaction');
  const checked = lines.filter((l) => l.startsWith('-C ')).map((l) => l.replace(/^-C /, '-A '));
  const appended = lines.filter((l) => l.startsWith('-A '));
  t.equal(checked.length + appended.length, lines.length - 3, 'nothing but checks and appends');
  const goRules = GO_V4.split('\n').filter((l) => l.startsWith('-A '));
  t.same(new Set(checked), new Set(goRules.filter((l) => !l.includes('10.88.0.2'))), 'checked: every shared rule of the Go layout');
  t.same(
    appended,
    goRules.filter((l) => l.includes('10.88.0.2')),
    "appended: the pod's two rules, in the reference's order",
  );
  t.notMatch(planIptablesFirewallAppend(target({ ingressPolicy: 'open' }), 4) ?? '', /ISOLATION/, 'open policy: no isolation rules checked');
  t.equal(planIptablesFirewallAppend(target({ addrs: [{ family: 6, ip: 'fd00::2' }] }), 4), undefined, 'no address of the family: nothing to do');
});

t.test('whether iptables-nft rules (as the kernel dumps them) compare an address of the pod', async (t) => {
  const fixture = JSON.parse(readFileSync(new URL('../core/fixtures/nft-rules.json', import.meta.url), 'utf8')) as { iptablesNft: { rules: string[] } };
  const rules = fixture.iptablesNft.rules.map((b64) => decodeRule(Buffer.from(b64, 'base64')));
  const at = (ip: string) =>
    target({
      addrs: [
        { family: 4, ip },
        { family: 6, ip: 'fd00::2' },
      ],
    });
  t.equal(chainNamesAddresses(rules, at('10.201.0.250'), 4), true, 'the rules of 10.201.0.250 name it');
  t.equal(chainNamesAddresses(rules, at('10.201.0.251'), 4), false, 'another address is not named');
  t.equal(chainNamesAddresses(rules, at('10.201.0.250'), 6), false, 'the family given is the one compared');
  t.equal(chainNamesAddresses([], at('10.201.0.250'), 4), false, 'an empty (or absent) chain names nothing');
});

t.test('the netlink append: only where the shared jumps are there and a pod pair shows our encoding', async (t) => {
  const fixture = JSON.parse(readFileSync(new URL('../core/fixtures/nft-rules.json', import.meta.url), 'utf8')) as {
    firewallIptablesNft: { dumps: Record<'ip' | 'ip6', Record<'FORWARD' | 'CNI-FORWARD', string[]>> };
  };
  const chains = (fam: 'ip' | 'ip6') => {
    const d = fixture.firewallIptablesNft.dumps[fam];
    return { forward: d.FORWARD.map((b) => decodeRule(Buffer.from(b, 'base64'))), fw: d['CNI-FORWARD'].map((b) => decodeRule(Buffer.from(b, 'base64'))) };
  };
  const open = target({
    ingressPolicy: 'open',
    addrs: [
      { family: 4, ip: '10.88.0.9' },
      { family: 6, ip: 'fd00::9' },
    ],
  });
  const v4 = planIptablesFirewallNetlinkAppend(open, 4, chains('ip'));
  t.equal(v4?.length, 2, 'IPv4: the two rules of 10.88.0.9');
  t.ok(
    v4?.every((m) => m.payload.includes(Buffer.from([10, 88, 0, 9]))),
    'each names the address',
  );
  t.equal(planIptablesFirewallNetlinkAppend(open, 6, chains('ip6'))?.length, 2, 'IPv6: the two rules of fd00::9');
  t.equal(
    planIptablesFirewallNetlinkAppend(target({ ...open, ingressPolicy: 'same-bridge' }), 4, chains('ip')),
    undefined,
    'same-bridge: left to iptables-restore',
  );
  t.equal(
    planIptablesFirewallNetlinkAppend(target({ ...open, adminChain: 'MY-ADMIN' }), 4, chains('ip')),
    undefined,
    'another admin chain: its jump is not there',
  );
  t.equal(planIptablesFirewallNetlinkAppend(open, 4, { ...chains('ip'), forward: [] }), undefined, 'no jump from FORWARD');
  const named = target({ ...open, addrs: [{ family: 4, ip: '10.88.0.2' }] });
  t.equal(planIptablesFirewallNetlinkAppend(named, 4, chains('ip')), undefined, 'a rule names the address already');
  const onlyJumps = chains('ip').fw.filter((r) => !r.exprs.some((e) => e.name === 'cmp'));
  t.equal(planIptablesFirewallNetlinkAppend(open, 4, { ...chains('ip'), fw: onlyJumps }), undefined, 'no pod rules yet: nothing shows the encoding');
});

t.test("the netlink delete: the first rule that is exactly each of the pod's two, by handle; another form of them leaves it to iptables", async (t) => {
  const fixture = JSON.parse(readFileSync(new URL('../core/fixtures/nft-rules.json', import.meta.url), 'utf8')) as {
    firewallIptablesNft: { dumps: Record<'ip' | 'ip6', Record<'CNI-FORWARD', string[]>> };
  };
  // The chains as iptables-restore wrote them: the admin jump, then 10.88.0.2's rules (-d with
  // conntrack, -s), then 10.88.0.3's; `nft -a list` showed IPv4 handles 5, 6 7, 10 11 and IPv6 5, 6 7, 8 9.
  const fw = (fam: 'ip' | 'ip6') => fixture.firewallIptablesNft.dumps[fam]['CNI-FORWARD'].map((b) => decodeRule(Buffer.from(b, 'base64')));
  const at = (...addrs: FirewallTarget['addrs']) => target({ ingressPolicy: 'open', addrs });
  const handles = (plan: ReturnType<typeof planIptablesFirewallNetlinkDelete>) =>
    plan?.map((m) => {
      t.equal(m.msg, 8, 'NFT_MSG_DELRULE');
      return m.payload.readBigUInt64BE(m.payload.length - 8);
    });

  t.same(handles(planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.2' }), 4, fw('ip'))), [6n, 7n], "IPv4: 10.88.0.2's two rules");
  t.same(handles(planIptablesFirewallNetlinkDelete(at({ family: 6, ip: 'fd00::3' }), 6, fw('ip6'))), [8n, 9n], "IPv6: fd00::3's two rules");
  t.same(
    handles(planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.2' }, { family: 4, ip: '10.88.0.3' }), 4, fw('ip'))),
    [6n, 7n, 10n, 11n],
    'two addresses of the family: all four',
  );
  t.same(handles(planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.9' }), 4, fw('ip'))), [], 'no rule names the address: nothing to delete');
  t.same(handles(planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.2' }), 4, [])), [], 'no chain: nothing to delete');
  t.same(
    handles(planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.2' }, { family: 6, ip: 'fd00::2' }), 4, fw('ip'))),
    [6n, 7n],
    'only the family given',
  );

  const [, reply, out] = fw('ip');
  const copy = (r: NftKernelRule, o: Partial<NftKernelRule>): NftKernelRule => ({
    table: r.table,
    chain: r.chain,
    handle: r.handle,
    elems: r.elems,
    exprs: r.exprs,
    ...o,
  });
  t.same(
    handles(planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.2' }), 4, [...fw('ip'), copy(out!, { handle: 12n })])),
    [6n, 7n],
    'a rule there twice: the first, as iptables -D deletes one',
  );
  t.same(
    handles(planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.2' }), 4, [copy(out!, { handle: 3n })])),
    [3n],
    'one rule of the pair left: that one',
  );
  // -d 10.88.0.2 -j ACCEPT, without the conntrack match: the address in a form that is not ours.
  const noConntrack = copy(reply!, { handle: 4n, elems: reply!.elems.filter((e) => !e.includes(Buffer.from('conntrack'))) });
  t.equal(
    planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.2' }), 4, [noConntrack, ...fw('ip')]),
    undefined,
    'a rule names the address in another form',
  );
  t.equal(
    planIptablesFirewallNetlinkDelete(at({ family: 4, ip: '10.88.0.2' }), 4, [copy(reply!, { handle: undefined })]),
    undefined,
    'a rule without a handle',
  );
  t.equal(planIptablesFirewallNetlinkDelete(at({ family: 4, ip: 'no-address' }), 4, fw('ip')), undefined, 'text that is no address');
});
