// The firewall plugin's nftables layout (pure). The reference has no nftables backend (v1.1.1
// and later: iptables and firewalld), so this one mirrors the iptables semantics in one table
// of our own (docs/architecture.md):
//
//   table inet cni_firewall
//     chain forward  (hook forward, priority filter; its policy is the admin's, never reset)
//       jump isolation_stage_1; jump admin
//       ip daddr @pods4 ct state established,related accept; ip saddr @pods4 accept   (ip6: @pods6)
//     chain admin              the admin's overrides, never written
//     chain isolation_stage_1  per same-bridge bridge: iifname br oifname != br jump isolation_stage_2
//     chain isolation_stage_2  per same-bridge bridge: oifname br drop
//     set pods4, pods6         one element per pod address, commented with the attachment's key
//
// The pod addresses live in sets, so an ADD is one `nft -f -` that reads no listing (an element
// is replaced, not read first: elementLines), and `forward` is rewritten whole (it holds only
// these jumps) unless a look at it over nfnetlink finds it as it would be written.
import { nftInstanceHash, nftNetworkHash } from '../core/names.ts';
import type { NftRule } from '../core/nft-json.ts';
import { parseNftListing } from '../core/nft-json.ts';
import { addrBytesOf, type FirewallTarget } from './firewall-spec.ts';
import { VERDICT, type NftKernelRule } from '../core/nft-rule-dump.ts';
import type { SetElem } from '../core/nft-set-elems.ts';

type Family = 4 | 6;

export const FW_NFT_TABLE = 'cni_firewall';
const T = `inet ${FW_NFT_TABLE}`;
const SET: Record<Family, string> = { 4: 'pods4', 6: 'pods6' };
const PROTO: Record<Family, string> = { 4: 'ip', 6: 'ip6' };

export interface FwNftElem {
  readonly set: string;
  readonly val: string;
  readonly comment: string | undefined;
}

export interface FwNftState {
  readonly exists: boolean;
  readonly chains: ReadonlySet<string>;
  readonly rules: readonly NftRule[];
  readonly elems: readonly FwNftElem[];
}

export const EMPTY_FW_STATE: FwNftState = { exists: false, chains: new Set(), rules: [], elems: [] };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `nft -j list table inet cni_firewall`: chains, rules and the sets' elements. */
export function parseFirewallNft(text: string): FwNftState {
  const listing = parseNftListing(text);
  const elems: FwNftElem[] = [];
  const doc: unknown = JSON.parse(text);
  for (const item of isObj(doc) && Array.isArray(doc['nftables']) ? (doc['nftables'] as unknown[]) : []) {
    const s = isObj(item) ? item['set'] : undefined;
    if (!isObj(s) || typeof s['name'] !== 'string' || !Array.isArray(s['elem'])) continue;
    for (const e of s['elem'] as unknown[]) {
      const inner = isObj(e) && isObj(e['elem']) ? e['elem'] : undefined;
      const val = inner ? inner['val'] : e;
      if (typeof val !== 'string') continue;
      const comment = inner && typeof inner['comment'] === 'string' ? inner['comment'] : undefined;
      elems.push({ set: s['name'], val, comment });
    }
  }
  return { exists: true, chains: new Set(listing.chains.map((c) => c.name)), rules: listing.rules, elems };
}

/** The key of one attachment's elements: the masquerade's instance hash (network, ifname, container). */
export const firewallNftKey = (t: Pick<FirewallTarget, 'network' | 'ifname' | 'containerId'>): string => nftInstanceHash(t.network, t.ifname, t.containerId);

const q = (s: string): string => `"${s}"`;
const bridgeComment = (br: string): string => `same-bridge ${br}`;

function skeleton(): string[] {
  const lines = [
    `add table ${T} { comment "CNI firewall plugin" ; }`,
    `add chain ${T} forward { type filter hook forward priority filter ; }`,
    ...['admin', 'isolation_stage_1', 'isolation_stage_2'].map((c) => `add chain ${T} ${c}`),
    `add set ${T} pods4 { type ipv4_addr ; }`,
    `add set ${T} pods6 { type ipv6_addr ; }`,
    `flush chain ${T} forward`,
    `add rule ${T} forward jump isolation_stage_1`,
    `add rule ${T} forward jump admin`,
  ];
  for (const f of [4, 6] as const) {
    lines.push(`add rule ${T} forward ${PROTO[f]} daddr @${SET[f]} ct state established,related accept`);
    lines.push(`add rule ${T} forward ${PROTO[f]} saddr @${SET[f]} accept`);
  }
  return lines;
}

/**
 * The attachment's elements, each replacing one of the same address whatever its comment: the
 * newest attachment of an address owns its element, so a later DEL or GC of an older one (whose
 * DEL never came, and whose address went to a new pod) cannot take the new pod's accept away.
 * `add element` keeps an existing element and its comment, and the kernel has no replace for an
 * element, so: add (a no-op when there), delete, add with the comment, all in the one
 * transaction (no moment without the element), without a read.
 */
function elementLines(t: FirewallTarget): string[] {
  const key = firewallNftKey(t);
  return t.addrs.flatMap((a) => {
    const elem = `${T} ${SET[a.family]} { ${a.ip}`;
    return [`add element ${elem} }`, `delete element ${elem} }`, `add element ${elem} comment ${q(key)} }`];
  });
}

/** ADD as one transaction. `state` (a read) is needed only for same-bridge: whether the bridge's rules exist. */
export function planNftFirewallSetup(t: FirewallTarget, state?: FwNftState): string {
  const lines = [...skeleton(), ...elementLines(t)];
  if (t.ingressPolicy === 'same-bridge' && t.bridge !== undefined && !hasBridgeRules(state, t.bridge)) {
    const br = t.bridge;
    lines.push(`add rule ${T} isolation_stage_1 iifname ${q(br)} oifname != ${q(br)} jump isolation_stage_2 comment ${q(bridgeComment(br))}`);
    lines.push(`add rule ${T} isolation_stage_2 oifname ${q(br)} drop comment ${q(bridgeComment(br))}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * ADD when the skeleton is in place (isFirewallSkeleton): the elements alone, per set, written
 * over nfnetlink (core/nft-set-elems.ts). Writing the skeleton again is what makes the full script
 * slow: re-adding a chain that exists costs the commit ~14 ms (measured with `nft -f`), and an
 * `nft` process ~5 ms more.
 */
export function firewallSetElems(t: FirewallTarget): { set: string; elems: SetElem[] }[] {
  const comment = firewallNftKey(t);
  return ([4, 6] as const).map((f) => ({
    set: SET[f],
    elems: addrBytesOf(t, f).flatMap((key) => (key === undefined ? [] : [{ key, comment }])),
  }));
}

// What each rule of the skeleton's `forward` ends in and looks up, as the kernel dumps it.
const ruleShape = (r: NftKernelRule): string => {
  const last = r.exprs.at(-1);
  const verdict = last !== undefined && 'verdict' in last ? last.verdict : undefined;
  const set = r.exprs.flatMap((e) => ('set' in e ? [e.set] : []))[0] ?? '';
  return [verdict?.code ?? '', verdict?.chain ?? '', set, r.exprs.some((e) => e.name === 'ct')].join(':');
};
const SKELETON_SHAPE = [
  `${VERDICT.jump}:isolation_stage_1::false`,
  `${VERDICT.jump}:admin::false`,
  ...([4, 6] as const).flatMap((f) => [`${VERDICT.accept}::${SET[f]}:true`, `${VERDICT.accept}::${SET[f]}:false`]),
].join(' ');

/**
 * Whether `forward`, as the kernel dumps it, holds the skeleton's six rules in their order. Those
 * rules jump to the other chains and look up both sets, and the kernel keeps what a rule refers
 * to, so the whole skeleton is then in place. Anything else (no table yet, an older layout, a
 * rule someone added) takes the full script, which rewrites `forward`.
 */
export function isFirewallSkeleton(rules: readonly NftKernelRule[]): boolean {
  return rules.map(ruleShape).join(' ') === SKELETON_SHAPE;
}

function hasBridgeRules(state: FwNftState | undefined, br: string): boolean {
  const c = bridgeComment(br);
  const chains = new Set(state?.rules.filter((r) => r.comment === c).map((r) => r.chain));
  return chains.has('isolation_stage_1') && chains.has('isolation_stage_2');
}

/** Which elements a DEL or a GC removes, by their comment. */
export type ElemPick = (comment: string | undefined) => boolean;

/** DEL: this attachment's elements, found by their comment (no prevResult needed). */
export const teardownPick =
  (key: string): ElemPick =>
  (comment) =>
    comment === key;

/** GC: this network's elements whose attachment is not among `validKeys`. */
export function gcPick(network: string, validKeys: ReadonlySet<string>): ElemPick {
  const prefix = `${nftNetworkHash(network)}-`;
  return (comment) => comment?.startsWith(prefix) === true && !validKeys.has(comment);
}

/** The `nft -f` script that deletes the elements `pick` chooses of a listing; undefined for none. */
export function planNftFirewallDelete(state: FwNftState, pick: ElemPick): string | undefined {
  const elems = state.elems.filter((e) => pick(e.comment));
  if (elems.length === 0) return undefined;
  return `${elems.map((e) => `delete element ${T} ${e.set} { ${e.val} }`).join('\n')}\n`;
}

/** The firewall's sets, for a look at their elements over nfnetlink. */
export const FW_SETS: readonly string[] = [SET[4], SET[6]];

/** The keys `pick` chooses of each set's elements as the kernel dumps them (pure); only sets with some. */
export function pickSetElems(sets: readonly { set: string; elems: readonly SetElem[] }[], pick: ElemPick): { set: string; keys: Uint8Array[] }[] {
  return sets.map((s) => ({ set: s.set, keys: s.elems.filter((e) => pick(e.comment)).map((e) => e.key) })).filter((s) => s.keys.length > 0);
}

const jumpExpr = (target: string): string => JSON.stringify([{ jump: { target } }]);
const matchAddr = (f: Family, field: string) => ({ match: { op: '==', left: { payload: { protocol: PROTO[f], field } }, right: `@${SET[f]}` } });
const replyExpr = (f: Family): string =>
  JSON.stringify([matchAddr(f, 'daddr'), { match: { op: 'in', left: { ct: { key: 'state' } }, right: ['established', 'related'] } }, { accept: null }]);
const outExpr = (f: Family): string => JSON.stringify([matchAddr(f, 'saddr'), { accept: null }]);

/** CHECK: the first missing piece, or undefined. */
export function checkNftFirewall(state: FwNftState, t: FirewallTarget): string | undefined {
  if (!state.exists) return `table ${T} not found`;
  const forward = new Set(state.rules.filter((r) => r.chain === 'forward').map((r) => r.expr));
  if (!forward.has(jumpExpr('admin'))) return `chain forward of table ${T} does not jump to admin`;
  const key = firewallNftKey(t);
  for (const a of t.addrs) {
    if (!forward.has(replyExpr(a.family)) || !forward.has(outExpr(a.family))) return `chain forward of table ${T} lacks the rules of set ${SET[a.family]}`;
    if (!state.elems.some((e) => e.set === SET[a.family] && e.val === a.ip && e.comment === key)) return `address ${a.ip} not found in set ${SET[a.family]}`;
  }
  if (t.ingressPolicy === 'same-bridge' && t.bridge !== undefined) {
    if (!forward.has(jumpExpr('isolation_stage_1'))) return `chain forward of table ${T} does not jump to isolation_stage_1`;
    if (!hasBridgeRules(state, t.bridge)) return `isolation rules for bridge ${t.bridge} not found`;
  }
  return undefined;
}
