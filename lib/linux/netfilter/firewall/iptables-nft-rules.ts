// The firewall's iptables rules in the encoding iptables-nft keeps them in nftables, so the
// common ADD can append a pod's two rules over nfnetlink instead of running iptables-restore,
// and DEL can find them and delete them by handle instead of running `iptables -D`.
//
// Written only where the node's own iptables has been seen to write exactly this: the chain
// must already hold both rules of another address that, address aside and counters zeroed,
// are these bytes (podRulesEncodedAsOurs), and the shared jumps must be there in the same
// encoding. Then iptables-save, iptables -C/-D, and the Go plugin's DEL (which asks the node's
// iptables) see our rules as the ones that iptables would have written, because they are the
// same bytes. Anything else (iptables-legacy, another iptables-nft encoding, an admin's edit, the
// first pod) goes through iptables-restore, as before.
//
// The encoding is iptables-nft 1.8.9's (strace of `iptables-restore`, pinned by a test):
//   -d ip -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT:
//     payload (network header, daddr) → reg 1; cmp eq ip; match conntrack rev 3; counter; accept
//   -s ip -j ACCEPT: payload (saddr) → reg 1; cmp eq ip; counter; accept
//   -m comment --comment C -j CHAIN: match comment rev 0; counter; jump CHAIN
// Integers in nf_tables attributes are big endian; the xt match blobs are the kernel's structs
// in host order.
import { encodeNfgenmsg } from '../../conntrack-codec.ts';
import { attrBe32, attrBytes, attrNest, attrString, attrText, encodeAttrs, findAttr, type Attr } from '../../nl-codec.ts';
import { NLM_F_APPEND, NLM_F_CREATE } from '../../nl-request.ts';
import {
  NFT_MSG_DELRULE,
  NFT_MSG_NEWRULE,
  NFTA_CMP_DATA,
  NFTA_DATA_VALUE,
  NFTA_DATA_VERDICT,
  NFTA_EXPR_DATA,
  NFTA_EXPR_NAME,
  NFTA_IMMEDIATE_DATA,
  NFTA_LIST_ELEM,
  NFTA_RULE_CHAIN,
  NFTA_RULE_EXPRESSIONS,
  NFTA_RULE_HANDLE,
  NFTA_RULE_TABLE,
  NFTA_VERDICT_CHAIN,
  NFTA_VERDICT_CODE,
  NFT_FAMILY,
} from '../core/nft-attrs.ts';
import { NFPROTO } from '../core/nfnl.ts';
import { VERDICT, type NftExpr, type NftKernelRule } from '../core/nft-rule-dump.ts';

type Family = 4 | 6;

// include/uapi/linux/netfilter/nf_tables.h
const NFTA_RULE_COMPAT = 5;
const NFTA_RULE_COMPAT_PROTO = 1;
const NFTA_RULE_COMPAT_FLAGS = 2;
const NFTA_PAYLOAD_DREG = 1;
const NFTA_PAYLOAD_BASE = 2;
const NFTA_PAYLOAD_OFFSET = 3;
const NFTA_PAYLOAD_LEN = 4;
const NFTA_CMP_SREG = 1;
const NFTA_CMP_OP = 2;
const NFTA_IMMEDIATE_DREG = 1;
const NFTA_COUNTER_BYTES = 1;
const NFTA_COUNTER_PACKETS = 2;
const NFTA_MATCH_NAME = 1;
const NFTA_MATCH_REV = 2;
const NFTA_MATCH_INFO = 3;
const NFT_REG_VERDICT = 0;
const NFT_REG_1 = 1;
const NFT_PAYLOAD_NETWORK_HEADER = 1;
const NFT_CMP_EQ = 0;

/** Where the addresses lie in the IPv4 and IPv6 headers. */
const ADDR: Record<Family, { len: number; src: number; dst: number }> = {
  4: { len: 4, src: 12, dst: 16 },
  6: { len: 16, src: 8, dst: 24 },
};

// struct xt_conntrack_mtinfo3 (include/uapi/linux/netfilter/xt_conntrack.h), XT_ALIGNed: eight
// 16-byte addresses and masks, expires_min/max, l4proto and four ports, then match_flags,
// invert_flags, state_mask.
const CONNTRACK_INFO_LEN = 168;
const CONNTRACK_MATCH_FLAGS_AT = 146;
const CONNTRACK_STATE_MASK_AT = 150;
const XT_CONNTRACK_STATE = 1;
/** XT_CONNTRACK_STATE_BIT(IP_CT_ESTABLISHED) | XT_CONNTRACK_STATE_BIT(IP_CT_RELATED) */
const STATE_RELATED_ESTABLISHED = (1 << 1) | (1 << 2);
/** struct xt_comment_info: the comment, NUL-padded. */
const COMMENT_INFO_LEN = 256;

/** One expression: its name and its data (NFTA_LIST_ELEM). */
const expr = (name: string, data: readonly Attr[], nested: boolean): Attr =>
  attrNest(NFTA_LIST_ELEM, [attrString(NFTA_EXPR_NAME, name), attrNest(NFTA_EXPR_DATA, data, nested)], nested);

function conntrackInfo(): Buffer {
  const info = Buffer.alloc(CONNTRACK_INFO_LEN);
  info.writeUInt16LE(XT_CONNTRACK_STATE, CONNTRACK_MATCH_FLAGS_AT);
  info.writeUInt16LE(STATE_RELATED_ESTABLISHED, CONNTRACK_STATE_MASK_AT);
  return info;
}

function commentInfo(comment: string): Buffer {
  const text = Buffer.from(comment, 'utf8');
  if (text.length >= COMMENT_INFO_LEN) throw new RangeError(`comment longer than ${COMMENT_INFO_LEN - 1} bytes`);
  return Buffer.concat([text, Buffer.alloc(COMMENT_INFO_LEN - text.length)]);
}

const matchExpr = (name: string, rev: number, info: Buffer, nested: boolean): Attr =>
  expr('match', [attrString(NFTA_MATCH_NAME, name), attrBe32(NFTA_MATCH_REV, rev), attrBytes(NFTA_MATCH_INFO, info)], nested);

/** A counter at zero, as iptables writes every rule's. */
const counterExpr = (nested: boolean): Attr =>
  expr('counter', [attrBytes(NFTA_COUNTER_BYTES, Buffer.alloc(8)), attrBytes(NFTA_COUNTER_PACKETS, Buffer.alloc(8))], nested);

const verdictExpr = (code: number, chain: string | undefined, nested: boolean): Attr =>
  expr(
    'immediate',
    [
      attrBe32(NFTA_IMMEDIATE_DREG, NFT_REG_VERDICT),
      attrNest(
        NFTA_IMMEDIATE_DATA,
        [attrNest(NFTA_DATA_VERDICT, [attrBe32(NFTA_VERDICT_CODE, code), ...(chain === undefined ? [] : [attrString(NFTA_VERDICT_CHAIN, chain)])], nested)],
        nested,
      ),
    ],
    nested,
  );

function addrMatch(family: Family, addr: Uint8Array, which: 'src' | 'dst', nested: boolean): Attr[] {
  const at = ADDR[family];
  return [
    expr(
      'payload',
      [
        attrBe32(NFTA_PAYLOAD_DREG, NFT_REG_1),
        attrBe32(NFTA_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER),
        attrBe32(NFTA_PAYLOAD_OFFSET, at[which]),
        attrBe32(NFTA_PAYLOAD_LEN, at.len),
      ],
      nested,
    ),
    expr(
      'cmp',
      [attrBe32(NFTA_CMP_SREG, NFT_REG_1), attrBe32(NFTA_CMP_OP, NFT_CMP_EQ), attrNest(NFTA_CMP_DATA, [attrBytes(NFTA_DATA_VALUE, addr)], nested)],
      nested,
    ),
  ];
}

/**
 * The expressions of an address's two rules (pure), in the order the firewall writes them:
 * replies to it (`-d ip -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`), then anything
 * from it (`-s ip -j ACCEPT`). `nested`: NLA_F_NESTED on nests, as iptables sends them (the
 * kernel's dumps leave it off).
 */
export function podRuleExprs(family: Family, addr: Uint8Array, nested: boolean): [Attr[], Attr[]] {
  return [
    [
      ...addrMatch(family, addr, 'dst', nested),
      matchExpr('conntrack', 3, conntrackInfo(), nested),
      counterExpr(nested),
      verdictExpr(VERDICT.accept, undefined, nested),
    ],
    [...addrMatch(family, addr, 'src', nested), counterExpr(nested), verdictExpr(VERDICT.accept, undefined, nested)],
  ];
}

/** `-m comment --comment C -j CHAIN` (pure). */
export function commentJumpExprs(comment: string, chain: string, nested: boolean): Attr[] {
  return [matchExpr('comment', 0, commentInfo(comment), nested), counterExpr(nested), verdictExpr(VERDICT.jump, chain, nested)];
}

/**
 * The NFT_MSG_NEWRULE payload (pure) that appends a rule of `exprs` to `chain` of family's
 * filter table, as iptables-restore sends `-A` (its compat attribute says "no protocol").
 */
export function encodeAppendRule(family: Family, chain: string, exprs: readonly Attr[]): Buffer {
  return Buffer.concat([
    encodeNfgenmsg(NFPROTO[NFT_FAMILY[family]]),
    encodeAttrs([
      attrString(NFTA_RULE_TABLE, 'filter'),
      attrString(NFTA_RULE_CHAIN, chain),
      attrNest(NFTA_RULE_EXPRESSIONS, exprs, true),
      attrNest(NFTA_RULE_COMPAT, [attrBe32(NFTA_RULE_COMPAT_PROTO, 0), attrBe32(NFTA_RULE_COMPAT_FLAGS, 0)], true),
    ]),
  ]);
}

/** Each expression's bytes as the kernel dumps them (an NFTA_LIST_ELEM's payload). */
const elemsOf = (exprs: readonly Attr[]): Buffer[] => exprs.map((e) => encodeAttrs([e]).subarray(4));

const isCounter = (elem: Buffer): boolean => attrText(findAttr(elem, NFTA_EXPR_NAME)) === 'counter';

/**
 * Whether a rule has exactly the expressions `exprs` (in the kernel's dump encoding). A counter
 * matches any counter: its values are the packets the rule has seen, not how it was written.
 */
export function ruleMatcher(exprs: readonly Attr[]): (r: NftKernelRule) => boolean {
  const want = elemsOf(exprs);
  const counters = want.map(isCounter);
  return (r) => r.elems.length === want.length && r.elems.every((e, i) => (counters[i] ? isCounter(e) : e.equals(want[i]!)));
}

/** Whether some rule of the chain has exactly the expressions `exprs` (ruleMatcher). */
export const chainHasRule = (rules: readonly NftKernelRule[], exprs: readonly Attr[]): boolean => rules.some(ruleMatcher(exprs));

/**
 * Whether the rule compares a value equal to `bytes` (iptables-nft writes `-s`/`-d` as a payload
 * load and a cmp of the address). The bytes are looked for first: only a rule that holds them
 * anywhere is decoded.
 */
export const comparesValue = (r: NftKernelRule, bytes: Buffer): boolean =>
  r.elems.some((e) => e.includes(bytes)) && r.exprs.some((e) => 'value' in e && bytes.equals(e.value));

/** How many addresses of the chain are tried as the proof: any one pair is proof enough. */
const CANDIDATES = 4;

/**
 * Whether the chain holds both rules of some address of `family` in exactly our encoding: the
 * proof that the node's iptables writes what podRuleExprs writes. Only the first few addresses
 * the chain compares are tried, so a chain of many pods in another encoding costs no more
 * than a few scans.
 */
export function podRulesEncodedAsOurs(rules: readonly NftKernelRule[], family: Family): boolean {
  const tried = new Set<string>();
  for (const r of rules) {
    const value = r.exprs.find((e): e is NftExpr & { value: Buffer } => 'value' in e && e.value.length === ADDR[family].len)?.value;
    if (value === undefined) continue;
    const hex = value.toString('hex');
    if (tried.has(hex)) continue;
    tried.add(hex);
    if (podRuleExprs(family, value, false).every((exprs) => chainHasRule(rules, exprs))) return true;
    if (tried.size >= CANDIDATES) return false;
  }
  return false;
}

/** The batch messages that append both rules of each address to CNI-FORWARD-like `chain` (pure). */
export function podRuleAppends(family: Family, chain: string, addrs: readonly Uint8Array[]): { msg: number; flags: number; payload: Buffer }[] {
  return addrs.flatMap((a) =>
    podRuleExprs(family, a, true).map((exprs) => ({
      msg: NFT_MSG_NEWRULE,
      flags: NLM_F_CREATE | NLM_F_APPEND,
      payload: encodeAppendRule(family, chain, exprs),
    })),
  );
}

/**
 * The NFT_MSG_DELRULE payload (pure) that deletes rule `handle` of `chain` of family's filter
 * table: what `nft delete rule ip filter CHAIN handle N` sends. The kernel deletes by handle
 * alone; `iptables -D` sends the rule's expressions too, which the kernel then ignores.
 */
export function encodeDeleteRule(family: Family, chain: string, handle: bigint): Buffer {
  const h = Buffer.alloc(8);
  h.writeBigUInt64BE(handle);
  return Buffer.concat([
    encodeNfgenmsg(NFPROTO[NFT_FAMILY[family]]),
    encodeAttrs([attrString(NFTA_RULE_TABLE, 'filter'), attrString(NFTA_RULE_CHAIN, chain), attrBytes(NFTA_RULE_HANDLE, h)]),
  ]);
}

/** The batch messages that delete these rules of `chain` by handle (pure). */
export function ruleDeletes(family: Family, chain: string, handles: readonly bigint[]): { msg: number; flags: number; payload: Buffer }[] {
  return handles.map((h) => ({ msg: NFT_MSG_DELRULE, flags: 0, payload: encodeDeleteRule(family, chain, h) }));
}
