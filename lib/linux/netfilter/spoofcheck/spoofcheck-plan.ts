// MAC spoof check as nft scripts (pure). Layout of the reference (pkg/link/spoofcheck.go), in
// table bridge nat:
//   PREROUTING (filter, hook prerouting, priority -300, policy accept):
//       iifname "<host veth>" jump cni-br-iface-<ref>
//   cni-br-iface-<ref>:      jump cni-br-iface-<ref>-mac
//   cni-br-iface-<ref>-mac:  ether saddr <container MAC> return; drop
// every rule commented `macspoofchk-<ref>`, ref = `<containerId>-<ifname>`. Ours only, the
// network's tag (core/names.ts, spoofNetworkTag) after the jump in cni-br-iface-<ref>:
//   continue comment "cni-net-<hash of network>"
import { SPOOF_BASE_CHAIN, spoofNamesOfRef, SPOOF_TABLE, type SpoofNames } from '../core/names.ts';
import type { NftListing, NftRule } from '../core/nft-json.ts';

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
export function planSpoofSetup(listing: NftListing, n: SpoofNames, port: { readonly hostIfname: string; readonly mac: string }, tag: string): string {
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
    `add rule ${T} ${n.ifaceChain} continue comment "${tag}"`,
    `add rule ${T} ${n.macChain} ether saddr ${mac} return ${c}`,
    `add rule ${T} ${n.macChain} drop ${c}`,
    '',
  ].join('\n');
}

/**
 * Teardown from a listing of table bridge nat: the PREROUTING rules carrying our comment, then
 * both chains (emptied first: older kernels refuse to delete a chain that still has rules).
 * The table and PREROUTING stay, as with the reference. Undefined when nothing is left.
 */
export function planSpoofTeardown(listing: NftListing, n: SpoofNames): string | undefined {
  const lines = ourJumps(listing, n).map((r) => `delete rule ${T} ${r.chain} handle ${r.handle}`);
  lines.push(...dropChains(listing, [n]));
  return lines.length === 0 ? undefined : `${lines.join('\n')}\n`;
}

/** Both chains of each attachment that exist, emptied first (older kernels refuse to delete a chain that still has rules). */
function dropChains(listing: NftListing, attachments: readonly SpoofNames[]): string[] {
  const present = new Set(listing.chains.filter((c) => c.family === 'bridge' && c.table === SPOOF_TABLE).map((c) => c.name));
  const chains = attachments.flatMap((n) => [n.ifaceChain, n.macChain]).filter((name) => present.has(name));
  return [...chains.map((name) => `flush chain ${T} ${name}`), ...chains.map((name) => `delete chain ${T} ${name}`)];
}

const inTable = (r: NftRule): boolean => r.family === 'bridge' && r.table === SPOOF_TABLE;

/**
 * GC of one network from a listing of table bridge nat: each attachment whose iface chain
 * carries this network's tag and whose comment is not in `validComments` loses its PREROUTING
 * jumps and both chains. Attachments without the tag (another network's, the Go plugin's)
 * stay. Undefined when nothing goes.
 */
export function planSpoofGc(listing: NftListing, tag: string, validComments: ReadonlySet<string>): string | undefined {
  const dead = new Map<string, SpoofNames>();
  for (const r of listing.rules) {
    if (!inTable(r) || r.comment !== tag || !r.chain.startsWith(IFACE_PREFIX)) continue;
    const n = spoofNamesOfRef(r.chain.slice(IFACE_PREFIX.length));
    if (n.ifaceChain === r.chain && !validComments.has(n.comment)) dead.set(n.ref, n);
  }
  const attachments = [...dead.values()];
  const lines = attachments.flatMap((n) => ourJumps(listing, n).map((j) => `delete rule ${T} ${SPOOF_BASE_CHAIN} handle ${j.handle}`));
  lines.push(...dropChains(listing, attachments));
  return lines.length === 0 ? undefined : `${lines.join('\n')}\n`;
}

const IFACE_PREFIX = spoofNamesOfRef('').ifaceChain;
