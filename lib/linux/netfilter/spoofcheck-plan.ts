// MAC spoof check as nft scripts (pure). Layout of the reference (pkg/link/spoofcheck.go), in
// table bridge nat:
//   PREROUTING (filter, hook prerouting, priority -300, policy accept):
//       iifname "<host veth>" jump cni-br-iface-<ref>
//   cni-br-iface-<ref>:      jump cni-br-iface-<ref>-mac
//   cni-br-iface-<ref>-mac:  ether saddr <container MAC> return; drop
// every rule commented `macspoofchk-<ref>`, ref = `<containerId>-<ifname>`. Ours only, the
// network's marker chain (names.ts, spoofNetworkChain):
//   cni-br-net-<hash of network>:  iifname "<host veth>" comment "macspoofchk-<ref>"
import { SPOOF_BASE_CHAIN, SPOOF_COMMENT_PREFIX, spoofNamesOfRef, SPOOF_TABLE, type SpoofNames } from './names.ts';
import type { NftListing, NftRule } from './nft-json.ts';

const T = `bridge ${SPOOF_TABLE}`;

/** PREROUTING rules of table bridge nat carrying this attachment's comment. */
function ourJumps(listing: NftListing, n: SpoofNames): NftRule[] {
  return listing.rules.filter((r) => r.family === 'bridge' && r.table === SPOOF_TABLE && r.chain === SPOOF_BASE_CHAIN && r.comment === n.comment);
}

/**
 * One transaction (the reference needs two: its flush would fail on a chain not yet created,
 * while inside one nft transaction the `add chain` comes first). `listing` is of the
 * PREROUTING chain and the network's marker chain (an earlier marker of this attachment is
 * replaced too): when it exists the table and base chain are not declared again (that
 * costs the commit an RCU grace period, ~10 ms here), and a jump left by an earlier setup of
 * this attachment is replaced, so a repeated setup leaves one copy of every rule.
 */
export function planSpoofSetup(listing: NftListing, n: SpoofNames, port: { readonly hostIfname: string; readonly mac: string }, netChain: string): string {
  const { hostIfname, mac } = port;
  const c = `comment "${n.comment}"`;
  const base = listing.chains.some((ch) => ch.family === 'bridge' && ch.table === SPOOF_TABLE && ch.name === SPOOF_BASE_CHAIN && ch.hook === 'prerouting');
  return [
    ...(base ? [] : [`add table ${T}`, `add chain ${T} ${SPOOF_BASE_CHAIN} { type filter hook prerouting priority -300 ; policy accept ; }`]),
    ...ourJumps(listing, n).map((r) => `delete rule ${T} ${SPOOF_BASE_CHAIN} handle ${r.handle}`),
    `add chain ${T} ${n.ifaceChain}`,
    `add chain ${T} ${n.macChain}`,
    `flush chain ${T} ${n.ifaceChain}`,
    `flush chain ${T} ${n.macChain}`,
    `add rule ${T} ${SPOOF_BASE_CHAIN} iifname "${hostIfname}" jump ${n.ifaceChain} ${c}`,
    `add rule ${T} ${n.ifaceChain} jump ${n.macChain} ${c}`,
    `add rule ${T} ${n.macChain} ether saddr ${mac} return ${c}`,
    `add rule ${T} ${n.macChain} drop ${c}`,
    ...(listing.chains.some((ch) => ch.family === 'bridge' && ch.table === SPOOF_TABLE && ch.name === netChain) ? [] : [`add chain ${T} ${netChain}`]),
    ...markers(listing, netChain)
      .filter((r) => r.comment === n.comment)
      .map((r) => `delete rule ${T} ${netChain} handle ${r.handle}`),
    `add rule ${T} ${netChain} iifname "${hostIfname}" ${c}`,
    '',
  ].join('\n');
}

/**
 * Teardown from a listing of table bridge nat: the PREROUTING rules carrying our comment, then
 * both chains (emptied first: older kernels refuse to delete a chain that still has rules).
 * The table and PREROUTING stay, as with the reference. Undefined when nothing is left.
 */
export function planSpoofTeardown(listing: NftListing, n: SpoofNames, netChain: string): string | undefined {
  const gone = markers(listing, netChain).filter((r) => r.comment === n.comment);
  const lines = [...ourJumps(listing, n), ...gone].map((r) => `delete rule ${T} ${r.chain} handle ${r.handle}`);
  lines.push(...dropChains(listing, [n]), ...dropEmptyNetChain(listing, netChain, gone));
  return lines.length === 0 ? undefined : `${lines.join('\n')}\n`;
}

/** The network's marker chain once `gone` were its last rules (nothing else uses it). */
function dropEmptyNetChain(listing: NftListing, netChain: string, gone: readonly NftRule[]): string[] {
  if (gone.length === 0) return [];
  const left = listing.rules.some((r) => inTable(r) && r.chain === netChain && !gone.includes(r));
  return left ? [] : [`delete chain ${T} ${netChain}`];
}

/** Both chains of each attachment that exist, emptied first (older kernels refuse to delete a chain that still has rules). */
function dropChains(listing: NftListing, attachments: readonly SpoofNames[]): string[] {
  const present = new Set(listing.chains.filter((c) => c.family === 'bridge' && c.table === SPOOF_TABLE).map((c) => c.name));
  const chains = attachments.flatMap((n) => [n.ifaceChain, n.macChain]).filter((name) => present.has(name));
  return [...chains.map((name) => `flush chain ${T} ${name}`), ...chains.map((name) => `delete chain ${T} ${name}`)];
}

const inTable = (r: NftRule): boolean => r.family === 'bridge' && r.table === SPOOF_TABLE;

/** This network's marker rules. */
function markers(listing: NftListing, netChain: string): NftRule[] {
  return listing.rules.filter((r) => inTable(r) && r.chain === netChain && r.comment?.startsWith(SPOOF_COMMENT_PREFIX) === true);
}

/** The `iifname` a rule matches, as nft -j prints it. */
function iifnameOf(r: NftRule): unknown {
  const items: unknown = JSON.parse(r.expr);
  for (const s of Array.isArray(items) ? items : []) {
    const m = field(s, 'match');
    if (field(m, 'op') === '==' && field(field(field(m, 'left'), 'meta'), 'key') === 'iifname') return field(m, 'right');
  }
  return undefined;
}

const field = (v: unknown, key: string): unknown =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;

/**
 * GC of one network from a listing of table bridge nat: for each marker of an attachment not
 * in `validComments`, the marker; and, when every PREROUTING jump of that attachment is on the
 * marker's host veth (a jump on another veth is a later attachment of the same container id
 * and ifname, made after a DEL that left our marker, by the Go plugin), those jumps and both
 * chains. Attachments without a marker of this network stay. Undefined when nothing goes.
 */
export function planSpoofGc(listing: NftListing, netChain: string, validComments: ReadonlySet<string>): string | undefined {
  const stale = markers(listing, netChain).filter((m) => !validComments.has(m.comment!));
  const lines = stale.map((m) => `delete rule ${T} ${m.chain} handle ${m.handle}`);
  const dead = new Map<string, SpoofNames>();
  for (const m of stale) {
    const n = spoofNamesOfRef(m.comment!.slice(SPOOF_COMMENT_PREFIX.length));
    const jumps = listing.rules.filter((r) => inTable(r) && r.chain === SPOOF_BASE_CHAIN && r.comment === n.comment);
    if (dead.has(n.ref) || jumps.some((j) => iifnameOf(j) !== iifnameOf(m))) continue;
    dead.set(n.ref, n);
    lines.push(...jumps.map((j) => `delete rule ${T} ${SPOOF_BASE_CHAIN} handle ${j.handle}`));
  }
  lines.push(...dropChains(listing, [...dead.values()]), ...dropEmptyNetChain(listing, netChain, stale));
  return lines.length === 0 ? undefined : `${lines.join('\n')}\n`;
}
