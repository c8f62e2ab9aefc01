import t from 'tap';
import { readFileSync } from 'node:fs';
import { decodeRule, type NftKernelRule } from '../core/nft-rule-dump.ts';
import { chainHasRule, commentJumpExprs, encodeDeleteRule, podRuleAppends, podRulesEncodedAsOurs } from './iptables-nft-rules.ts';
import { NFT_MSG_NEWRULE } from '../core/nft-attrs.ts';

interface Fixture {
  iptablesNft: { rules: string[] };
  firewallIptablesNft: { dumps: Record<'ip' | 'ip6', Record<'FORWARD' | 'CNI-FORWARD', string[]>>; appends: Record<'4' | '6', string[]> };
}
const fixture = JSON.parse(readFileSync(new URL('../core/fixtures/nft-rules.json', import.meta.url), 'utf8')) as Fixture;
const decode = (b64s: readonly string[]): NftKernelRule[] => b64s.map((b) => decodeRule(Buffer.from(b, 'base64')));
const dump = (fam: 'ip' | 'ip6', chain: 'FORWARD' | 'CNI-FORWARD') => decode(fixture.firewallIptablesNft.dumps[fam][chain]);

const v4 = Buffer.from([10, 88, 0, 3]);
const v6 = Buffer.from('fd000000000000000000000000000003', 'hex');

t.test('the two rules of an address are appended exactly as iptables-restore appends them (strace)', async (t) => {
  for (const [family, addr] of [
    [4, v4],
    [6, v6],
  ] as const) {
    const ours = podRuleAppends(family, 'CNI-FORWARD', [addr]);
    const theirs = fixture.firewallIptablesNft.appends[family].map((b) => Buffer.from(b, 'base64'));
    t.equal(ours.length, 2, `IPv${family}: two rules`);
    t.same(
      ours.map((m) => m.payload.toString('hex')),
      theirs.map((b) => b.toString('hex')),
      `IPv${family}: -d … conntrack …, then -s …, byte for byte`,
    );
    t.ok(
      ours.every((m) => m.msg === NFT_MSG_NEWRULE && m.flags === (0x400 | 0x800)),
      'NEWRULE with NLM_F_CREATE | NLM_F_APPEND, the flags iptables -A sends',
    );
  }
});

t.test('the node writes our encoding: rules iptables-nft wrote are recognised', async (t) => {
  t.ok(podRulesEncodedAsOurs(dump('ip', 'CNI-FORWARD'), 4), 'IPv4 (10.88.0.2 and .3)');
  t.ok(podRulesEncodedAsOurs(dump('ip6', 'CNI-FORWARD'), 6), 'IPv6 (fd00::2 and ::3)');
  t.ok(podRulesEncodedAsOurs(decode(fixture.iptablesNft.rules), 4), 'another capture: 10.201.0.250');
  t.notOk(podRulesEncodedAsOurs(dump('ip', 'CNI-FORWARD'), 6), 'no IPv6 address in the IPv4 chain');
  t.notOk(podRulesEncodedAsOurs([], 4), 'an empty chain proves nothing');
});

t.test('the shared jumps, as iptables-nft wrote them, with their comments', async (t) => {
  t.ok(chainHasRule(dump('ip', 'FORWARD'), commentJumpExprs('CNI firewall plugin rules', 'CNI-FORWARD', false)), 'FORWARD → CNI-FORWARD');
  t.ok(chainHasRule(dump('ip6', 'CNI-FORWARD'), commentJumpExprs('CNI firewall plugin admin overrides', 'CNI-ADMIN', false)), 'CNI-FORWARD → CNI-ADMIN');
  t.notOk(chainHasRule(dump('ip', 'CNI-FORWARD'), commentJumpExprs('CNI firewall plugin admin overrides', 'MY-ADMIN', false)), 'another admin chain');
  t.notOk(chainHasRule(dump('ip', 'FORWARD'), commentJumpExprs('CNI firewall plugin', 'CNI-FORWARD', false)), 'another comment');
});

/** A copy of a rule with one expression's bytes changed. */
function withElem(r: NftKernelRule, name: string, change: (b: Buffer) => void): NftKernelRule {
  const i = r.exprs.findIndex((e) => e.name === name);
  const elems = r.elems.map((e, j) => {
    const copy = Buffer.from(e);
    if (j === i) change(copy);
    return copy;
  });
  return { ...r, elems };
}

t.test('counters do not matter; anything else that differs does', async (t) => {
  const rules = dump('ip', 'CNI-FORWARD');
  const counted = rules.map((r) => withElem(r, 'counter', (b) => b.writeUInt8(7, b.length - 1)));
  t.ok(podRulesEncodedAsOurs(counted, 4), 'packets counted on every rule');
  // RELATED,ESTABLISHED → ESTABLISHED only: state_mask is at byte 150 of the match's 168-byte info.
  const established = rules.map((r) =>
    withElem(r, 'match', (b) => {
      const info = b.indexOf(Buffer.from([0xac, 0x00, 0x03, 0x00])) + 4;
      b.writeUInt16LE(1 << 1, info + 150);
    }),
  );
  t.notOk(podRulesEncodedAsOurs(established, 4), '--ctstate ESTABLISHED is not our rule');
  const dropped = rules.map((r) => withElem(r, 'immediate', (b) => b.writeUInt8(0, b.length - 1)));
  t.notOk(podRulesEncodedAsOurs(dropped, 4), '-j DROP is not our rule');
  const onlySource = rules.filter((r) => !r.exprs.some((e) => e.name === 'match'));
  t.notOk(podRulesEncodedAsOurs(onlySource, 4), 'one rule of the pair is not enough');
});

t.test('a rule is deleted by handle as `nft delete rule ip filter CNI-FORWARD handle 3` sends it (strace)', async (t) => {
  // strace -xx of nft 1.0.6: nfgen_family=AF_INET; "filter\0" (nla_len 11, padded); "CNI-FORWARD\0"
  // (nla_len 16); [nla_len 12, type 3 NFTA_RULE_HANDLE] 0000000000000003.
  const nft = Buffer.from('02000000' + '0b000100' + '66696c746572' + '0000' + '10000200' + '434e492d464f525741524400' + '0c000300' + '0000000000000003', 'hex');
  t.same(encodeDeleteRule(4, 'CNI-FORWARD', 3n), nft);
  t.equal(encodeDeleteRule(6, 'CNI-FORWARD', 3n)[0], 10, 'ip6 is NFPROTO_IPV6');
});
