import t from 'tap';
import { readFileSync } from 'node:fs';
import { decodeRule, encodeGetRules, VERDICT } from './nft-rule-dump.ts';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/nft-rules.json', import.meta.url), 'utf8')) as Record<string, { rules: string[] }>;
const rulesOf = (name: string) => fixture[name]!.rules.map((b64) => decodeRule(Buffer.from(b64, 'base64')));

t.test('the GETRULE dump payload is what nft sends for `nft list chain inet cni_firewall forward` (strace)', async (t) => {
  // strace -xx: nfgen_family=1 (NFPROTO_INET), version 0, res_id 0; [{nla_len=17, nla_type=1},
  // "cni_firewall\0"] padded to 20; [{nla_len=12, nla_type=2}, "forward\0"]; nlmsg_len 52.
  const expected = Buffer.concat([
    Buffer.from([1, 0, 0, 0]),
    Buffer.from([17, 0, 1, 0]),
    Buffer.from('cni_firewall\0', 'latin1'),
    Buffer.alloc(3),
    Buffer.from([12, 0, 2, 0]),
    Buffer.from('forward\0', 'latin1'),
  ]);
  t.same(encodeGetRules('inet', 'cni_firewall', 'forward'), expected);
  t.equal(expected.length, 52 - 16, 'nlmsg_len 52 minus the 16-byte netlink header');
  t.equal(encodeGetRules('ip6', 'filter', 'CNI-FORWARD')[0], 10, 'ip6 is NFPROTO_IPV6');
});

t.test('iptables-nft rules: the address compared, the verdict', async (t) => {
  const [src, dst] = rulesOf('iptablesNft');
  for (const r of [src!, dst!]) {
    t.equal(r.table, 'filter');
    t.equal(r.chain, 'CNI-FORWARD');
    t.same(
      r.exprs.filter((e) => e.name === 'cmp').map((e) => ('value' in e ? [...e.value] : [])),
      [[10, 201, 0, 250]],
      'one cmp, of 10.201.0.250',
    );
    t.same(r.exprs.at(-1), { name: 'immediate', verdict: { code: VERDICT.accept } }, 'ends in accept');
  }
  t.same(
    src!.exprs.map((e) => e.name),
    ['payload', 'cmp', 'counter', 'immediate'],
    '-s addr -j ACCEPT',
  );
  t.same(
    dst!.exprs.map((e) => e.name),
    ['payload', 'cmp', 'match', 'counter', 'immediate'],
    '-d addr -m conntrack ... -j ACCEPT (conntrack as an xt match)',
  );
  // In a fresh netns the chain is handle 1 and the two rules 2 and 3, as `nft -a list chain ip
  // filter CNI-FORWARD` prints them after the same two commands.
  t.same([src!.handle, dst!.handle], [2n, 3n], 'each rule with its handle (NFTA_RULE_HANDLE, 64 bits big endian)');
});

t.test('the firewall skeleton: jumps with their chains, lookups with their sets', async (t) => {
  const rules = rulesOf('firewallSkeleton');
  t.equal(rules.length, 6);
  t.same(rules[0]!.exprs, [{ name: 'immediate', verdict: { code: VERDICT.jump, chain: 'isolation_stage_1' } }]);
  t.same(rules[1]!.exprs, [{ name: 'immediate', verdict: { code: VERDICT.jump, chain: 'admin' } }]);
  t.same(
    rules.slice(2).map((r) => r.exprs.flatMap((e) => ('set' in e ? [e.set] : []))),
    [['pods4'], ['pods4'], ['pods6'], ['pods6']],
  );
  t.same(
    rules.slice(2).map((r) => r.exprs.some((e) => e.name === 'ct')),
    [true, false, true, false],
    'daddr rules check the conntrack state',
  );
  t.same(rules[2]!.exprs.at(-1), { name: 'immediate', verdict: { code: VERDICT.accept } });
});

t.test('truncated or empty messages decode to what is there, without throwing', async (t) => {
  t.same(decodeRule(Buffer.from([2, 0, 0, 0])), { table: '', chain: '', handle: undefined, exprs: [], elems: [] });
  const whole = Buffer.from(fixture['iptablesNft']!.rules[0]!, 'base64');
  t.doesNotThrow(() => decodeRule(whole.subarray(0, whole.length - 7)));
});

t.test("a rule's comment, from its userdata, as nft stored it; none when it has none", async (t) => {
  const [marked, bare] = rulesOf('portmapMarkers');
  t.same(
    [marked, bare].map((r) => [r!.chain, r!.handle, r!.exprs.flatMap((e) => ('value' in e ? [[...e.value]] : []))]),
    [
      ['cni_net_ee26b0dd4af7e749', 2n, [[10, 88, 0, 2]]],
      ['cni_net_ee26b0dd4af7e749', 3n, [[10, 88, 0, 3]]],
    ],
  );
  t.equal(marked!.comment, 'icee6giejonei6so');
  t.equal(bare!.comment, undefined);
  t.notOk('comment' in bare!, 'no comment key at all');
});
