// The portmap nftables rules as `nft -f` input (pure), in the layout of the reference v1.9.x
// (plugins/meta/portmap/portmap_nftables.go), one table per family, `ip|ip6 cni_hostport`:
//   prerouting, output (nat, dstnat): <conditions> fib daddr type local jump hostports_all
//   hostports_all:                   jump hostip_hostports; jump hostports
//   hostports:                       [ip daddr <hostIP>] <proto> dport <hp> dnat to <ip>:<cp>   comment "<container id>"
//   masquerading (nat, srcnat):      hairpin and localhost masquerade                            comment "<container id>"
// plus, ours only, the network's marker chain (core/names.ts, portmapNftNetworkChain):
//   cni_net_<hash of network>:       <ip|ip6> daddr <container ip>                               comment "<container id>"
// `fib daddr type local` keeps the rules to traffic addressed to this host: routed traffic to
// the same port of another machine passes untouched (plugins#1209).
import {
  PORTMAP_NFT_HOSTIP_HOSTPORTS,
  PORTMAP_NFT_HOSTPORTS,
  PORTMAP_NFT_HOSTPORTS_ALL,
  PORTMAP_NFT_MASQUERADING,
  PORTMAP_NFT_TABLE,
  PORTMAP_NFT_TABLE_COMMENT,
  portmapNftNetworkChain,
} from '../core/names.ts';
import type { NftListing, NftRule } from '../core/nft-json.ts';
import { NFT_FAMILY } from '../core/nft-attrs.ts';
import { conditionsFor, hostPortText, mappingsFor, type ContainerAddr, type PortmapTarget } from './portmap-spec.ts';

type Family = 4 | 6;
/** chains that hold per-container rules, found by their comment */
export const PORTMAP_RULE_CHAINS = [PORTMAP_NFT_HOSTPORTS, PORTMAP_NFT_HOSTIP_HOSTPORTS, PORTMAP_NFT_MASQUERADING] as const;

const table = (f: Family): string => `${NFT_FAMILY[f]} ${PORTMAP_NFT_TABLE}`;

/**
 * One family's part of the ADD transaction. Like the reference it declares the table and
 * chains, and flushes and rewrites the entry chains, so the conditions of the latest ADD hold
 * table-wide; then it appends this container's rules. Nothing is read first: its cost does not
 * grow with the rules already there.
 */
export function planNftPortmapSetupFamily(t: PortmapTarget, addr: ContainerAddr): string[] {
  const T = table(addr.family);
  const ip = NFT_FAMILY[addr.family];
  const conds = conditionsFor(t, addr.family);
  const entry = [...conds, 'fib daddr type local jump', PORTMAP_NFT_HOSTPORTS_ALL].join(' ');
  const comment = `comment "${t.containerId}"`;
  const lines = [
    `add table ${T} { comment "${PORTMAP_NFT_TABLE_COMMENT}" ; }`,
    `add chain ${T} ${PORTMAP_NFT_HOSTPORTS}`,
    `add chain ${T} ${PORTMAP_NFT_HOSTIP_HOSTPORTS}`,
    `add chain ${T} ${PORTMAP_NFT_HOSTPORTS_ALL}`,
    `flush chain ${T} ${PORTMAP_NFT_HOSTPORTS_ALL}`,
    `add rule ${T} ${PORTMAP_NFT_HOSTPORTS_ALL} jump ${PORTMAP_NFT_HOSTIP_HOSTPORTS}`,
    `add rule ${T} ${PORTMAP_NFT_HOSTPORTS_ALL} jump ${PORTMAP_NFT_HOSTPORTS}`,
    `add chain ${T} prerouting { type nat hook prerouting priority -100 ; }`,
    `flush chain ${T} prerouting`,
    `add rule ${T} prerouting ${entry}`,
    `add chain ${T} output { type nat hook output priority -100 ; }`,
    `flush chain ${T} output`,
    `add rule ${T} output ${entry}`,
  ];
  if (t.snat) lines.push(`add chain ${T} ${PORTMAP_NFT_MASQUERADING} { type nat hook postrouting priority 100 ; }`);
  for (const { m, dst } of mappingsFor(t, addr.family)) {
    const d = dst === undefined ? '' : `${ip} daddr ${dst} `;
    lines.push(`add rule ${T} ${PORTMAP_NFT_HOSTPORTS} ${d}${m.protocol} dport ${m.hostPort} dnat to ${hostPortText(addr.ip, m.containerPort)} ${comment}`);
  }
  if (t.snat) {
    // Hairpin: the container's own address only (the iptables layout marks its whole subnet).
    const src = t.masqAll ? (addr.family === 4 ? '0.0.0.0/0' : '::/0') : addr.ip;
    lines.push(`add rule ${T} ${PORTMAP_NFT_MASQUERADING} ${ip} saddr ${src} ${ip} daddr ${addr.ip} masquerade ${comment}`);
    if (addr.family === 4 && !t.masqAll) {
      lines.push(`add rule ${T} ${PORTMAP_NFT_MASQUERADING} ip saddr 127.0.0.1 ip daddr ${addr.ip} masquerade ${comment}`);
    }
  }
  const owner = portmapNftNetworkChain(t.network);
  lines.push(`add chain ${T} ${owner}`, `add rule ${T} ${owner} ${ip} daddr ${addr.ip} ${comment}`);
  return lines;
}

/** The whole ADD: every family with an address, one transaction. */
export function planNftPortmapSetup(t: PortmapTarget, addrs: readonly ContainerAddr[]): string {
  return `${addrs.flatMap((a) => planNftPortmapSetupFamily(t, a)).join('\n')}\n`;
}

/** This container's rules in a listing (either family), by their comment. */
export function selectPortmapRules(rules: readonly NftRule[], containerId: string): NftRule[] {
  return rules.filter((r) => r.table === PORTMAP_NFT_TABLE && (PORTMAP_RULE_CHAINS as readonly string[]).includes(r.chain) && r.comment === containerId);
}

export function deletePortmapRulesScript(rules: readonly NftRule[]): string | undefined {
  if (rules.length === 0) return undefined;
  return rules.map((r) => `delete rule ${r.family} ${r.table} ${r.chain} handle ${r.handle}\n`).join('');
}

/**
 * DEL: every rule commented with the container id, in both families (as the reference does,
 * whatever network wrote them), and this network's markers of it; undefined if none.
 */
export function planNftPortmapTeardown(listings: readonly NftListing[], containerId: string, network: string): string | undefined {
  const owner = portmapNftNetworkChain(network);
  return deletePortmapRulesScript(
    listings.flatMap((l) => [
      ...selectPortmapRules(l.rules, containerId),
      ...l.rules.filter((r) => r.table === PORTMAP_NFT_TABLE && r.chain === owner && r.comment === containerId),
    ]),
  );
}

/** The container address a portmap rule is about: the DNAT target, or the masquerade's destination. */
function ruleAddr(r: NftRule): unknown {
  const { matches, dnat } = readRule(r.expr);
  return dnat ? dnat.addr : matches.get(`${r.family} daddr`);
}

/**
 * The rules `network`'s markers prove its own, for the containers `stale` picks: each such
 * marker, and the rules with its container id as comment whose address is the marker's. Rules
 * without a marker of this network (another network's, the Go plugin's, which has no markers)
 * stay, and so does a rule of the same container id on another network's address.
 */
function planOwnedDeletes(listings: readonly NftListing[], network: string, stale: (containerId: string) => boolean): string | undefined {
  const owner = portmapNftNetworkChain(network);
  const doomed: NftRule[] = [];
  for (const l of listings) {
    const markers = l.rules.filter((r) => r.table === PORTMAP_NFT_TABLE && r.chain === owner && r.comment !== undefined && stale(r.comment));
    for (const m of markers) {
      const addr = readRule(m.expr).matches.get(`${m.family} daddr`);
      if (addr === undefined) continue;
      doomed.push(m, ...selectPortmapRules(l.rules, m.comment!).filter((r) => r.family === m.family && ruleAddr(r) === addr));
    }
  }
  return deletePortmapRulesScript([...new Map(doomed.map((r) => [`${r.family} ${r.handle}`, r])).values()]);
}

/** GC of `network`: what its markers prove its own, of every container not in `validIds`. */
export function planNftPortmapGc(listings: readonly NftListing[], validIds: ReadonlySet<string>, network: string): string | undefined {
  return planOwnedDeletes(listings, network, (id) => !validIds.has(id));
}

/**
 * DEL without mappings (nftables): what `network`'s markers prove is this container's on it.
 * Such a DEL is mostly a network that maps no ports for the pod (a second attachment, say)
 * while another network of the same container id does, so the rules with the id alone do not
 * say they are this network's: the markers decide, as for GC.
 */
export function planNftPortmapTeardownOwned(listings: readonly NftListing[], containerId: string, network: string): string | undefined {
  return planOwnedDeletes(listings, network, (id) => id === containerId);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The `payload` matches and the dnat of a rule as nft -j prints them. */
function readRule(expr: string): { matches: Map<string, unknown>; dnat?: { addr: unknown; port: unknown } } {
  const matches = new Map<string, unknown>();
  let dnat: { addr: unknown; port: unknown } | undefined;
  const items: unknown = JSON.parse(expr);
  for (const s of Array.isArray(items) ? items : []) {
    if (!isObj(s)) continue;
    const m = s['match'];
    if (isObj(m) && m['op'] === '==' && isObj(m['left']) && isObj(m['left']['payload'])) {
      const p = m['left']['payload'];
      matches.set(`${String(p['protocol'])} ${String(p['field'])}`, m['right']);
    }
    const d = s['dnat'];
    if (isObj(d)) dnat = { addr: d['addr'], port: d['port'] };
  }
  return { matches, ...(dnat && { dnat }) };
}

/**
 * CHECK for one address: the table's entry chains, then each mapping's DNAT rule (port,
 * protocol, hostIP and destination all compared, in hostports or the legacy hostip_hostports)
 * and the masquerade rules. The first problem in the reference's words, or undefined.
 */
export function checkNftPortmap(listing: NftListing, t: PortmapTarget, addr: ContainerAddr): string | undefined {
  const names = new Set(listing.chains.map((c) => c.name));
  for (const c of ['prerouting', 'output', PORTMAP_NFT_HOSTPORTS_ALL, PORTMAP_NFT_HOSTPORTS]) {
    if (!names.has(c)) return `chain ${c} not found in table ${table(addr.family)}`;
  }
  const ip = NFT_FAMILY[addr.family];
  const mine = selectPortmapRules(listing.rules, t.containerId);
  const dnats = mine.filter((r) => r.chain !== PORTMAP_NFT_MASQUERADING).map((r) => readRule(r.expr));
  for (const { m, dst } of mappingsFor(t, addr.family)) {
    const found = dnats.some(
      (r) =>
        r.matches.get(`${m.protocol} dport`) === m.hostPort &&
        r.matches.get(`${ip} daddr`) === dst &&
        r.dnat?.addr === addr.ip &&
        r.dnat.port === m.containerPort,
    );
    if (!found) return `missing hostport rules in "${PORTMAP_NFT_HOSTPORTS}" chain`;
  }
  if (t.snat) {
    const want = addr.family === 4 && !t.masqAll ? 2 : 1;
    if (mine.filter((r) => r.chain === PORTMAP_NFT_MASQUERADING).length < want) return `missing hostport rules in "${PORTMAP_NFT_MASQUERADING}" chain`;
  }
  return undefined;
}
