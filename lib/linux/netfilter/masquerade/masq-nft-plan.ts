// The nftables masquerade rules as one `nft -f` script (pure). Layout of the reference
// (pkg/ip/ipmasq_nftables_linux.go): table inet cni_plugins_masquerade with a regular chain
// masq_checks holding one commented rule per container address, and a nat base chain
// postrouting that skips multicast and goes to masq_checks.
import {
  MASQ_CHAIN,
  MASQ_CHAIN_COMMENT,
  MASQ_POSTROUTING,
  MASQ_TABLE,
  MASQ_TABLE_COMMENT,
  nftInstanceHash,
  nftMasqComment,
  nftNetworkHash,
} from '../core/names.ts';
import type { NftListing, NftRule } from '../core/nft-json.ts';
import type { MasqAddr } from '../core/validate.ts';

const T = `inet ${MASQ_TABLE}`;

/** Our rules in masq_checks whose comment starts with `prefix` (an instance or network hash). */
export function selectMasqRules(rules: readonly NftRule[], prefix: string): NftRule[] {
  return rules.filter((r) => r.chain === MASQ_CHAIN && r.comment?.startsWith(prefix) === true);
}

export function deleteRulesScript(rules: readonly NftRule[]): string {
  return rules.map((r) => `delete rule ${T} ${MASQ_CHAIN} handle ${r.handle}\n`).join('');
}

// The postrouting rules as `nft -j` prints them: multicast returns, then goto masq_checks.
const POSTROUTING_EXPRS = [
  ['ip', '224.0.0.0', 4],
  ['ip6', 'ff00::', 8],
]
  .map(([protocol, addr, len]) =>
    JSON.stringify([{ match: { op: '==', left: { payload: { protocol, field: 'daddr' } }, right: { prefix: { addr, len } } } }, { return: null }]),
  )
  .concat(JSON.stringify([{ goto: { target: MASQ_CHAIN } }]));

/**
 * True when a listing of the table shows both chains and exactly the expected postrouting
 * rules. Then an ADD only adds its rules: re-declaring an existing chain or flushing
 * postrouting makes the kernel wait for an RCU grace period, ~10 ms per commit here.
 */
export function masqTableReady(listing: NftListing): boolean {
  const chain = (name: string) => listing.chains.find((c) => c.family === 'inet' && c.table === MASQ_TABLE && c.name === name);
  const post = chain(MASQ_POSTROUTING);
  if (chain(MASQ_CHAIN) === undefined || post?.type !== 'nat' || post.hook !== 'postrouting') return false;
  const exprs = listing.rules.filter((r) => r.chain === MASQ_POSTROUTING).map((r) => r.expr);
  return exprs.length === POSTROUTING_EXPRS.length && exprs.every((e, i) => e === POSTROUTING_EXPRS[i]);
}

/** The attachment whose rules these are; the three together make the rules' comment. */
export interface NftMasqOwner {
  readonly network: string;
  readonly ifname: string;
  readonly containerId: string;
}

/**
 * One transaction. Unless the table is already as it should be: ensure table and chains and
 * rebuild postrouting (flush + the three rules, so however many ADDs race, it ends with exactly
 * one copy). Always: replace this attachment's rules. `listing` is of the whole table.
 */
export function planNftMasqSetup(listing: NftListing, owner: NftMasqOwner, addrs: readonly MasqAddr[]): string {
  const { network, ifname, containerId } = owner;
  const comment = nftMasqComment(network, ifname, containerId);
  const stale = selectMasqRules(listing.rules, nftInstanceHash(network, ifname, containerId));
  const lines = masqTableReady(listing)
    ? []
    : [
        `add table ${T} { comment "${MASQ_TABLE_COMMENT}" ; }`,
        `add chain ${T} ${MASQ_CHAIN} { comment "${MASQ_CHAIN_COMMENT}" ; }`,
        `add chain ${T} ${MASQ_POSTROUTING} { type nat hook postrouting priority srcnat ; }`,
        `flush chain ${T} ${MASQ_POSTROUTING}`,
        `add rule ${T} ${MASQ_POSTROUTING} ip daddr == 224.0.0.0/4 return`,
        `add rule ${T} ${MASQ_POSTROUTING} ip6 daddr == ff00::/8 return`,
        `add rule ${T} ${MASQ_POSTROUTING} goto ${MASQ_CHAIN}`,
      ];
  for (const r of stale) lines.push(`delete rule ${T} ${MASQ_CHAIN} handle ${r.handle}`);
  for (const a of addrs) {
    const ip = a.family === 4 ? 'ip' : 'ip6';
    lines.push(`add rule ${T} ${MASQ_CHAIN} ${ip} saddr == ${a.ip} ${ip} daddr != ${a.subnet} masquerade comment "${comment}"`);
  }
  return `${lines.join('\n')}\n`;
}

/** Teardown: every rule of this network + ifname + container id; undefined when there are none. */
export function planNftMasqTeardown(existing: readonly NftRule[], network: string, ifname: string, containerId: string): string | undefined {
  const mine = selectMasqRules(existing, nftInstanceHash(network, ifname, containerId));
  return mine.length === 0 ? undefined : deleteRulesScript(mine);
}

/** GC: rules of `network` whose comment is not that of a valid attachment (the reference's test). */
export function planNftMasqGc(existing: readonly NftRule[], network: string, valid: readonly { containerID: string; ifname: string }[]): string | undefined {
  const keep = new Set(valid.map((a) => nftMasqComment(network, a.ifname, a.containerID)));
  const stale = selectMasqRules(existing, nftNetworkHash(network)).filter((r) => !keep.has(r.comment ?? ''));
  return stale.length === 0 ? undefined : deleteRulesScript(stale);
}
