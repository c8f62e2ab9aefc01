// MAC spoof check as nft scripts (pure). Layout of the reference (pkg/link/spoofcheck.go), in
// table bridge nat:
//   PREROUTING (filter, hook prerouting, priority -300, policy accept):
//       iifname "<host veth>" jump cni-br-iface-<ref>
//   cni-br-iface-<ref>:      jump cni-br-iface-<ref>-mac
//   cni-br-iface-<ref>-mac:  ether saddr <container MAC> return; drop
// every rule commented `macspoofchk-<ref>`, ref = `<containerId>-<ifname>`.
import { SPOOF_BASE_CHAIN, SPOOF_TABLE, type SpoofNames } from './names.ts';
import type { NftListing } from './nft-json.ts';

const T = `bridge ${SPOOF_TABLE}`;

/** PREROUTING rules of table bridge nat carrying this attachment's comment. */
function ourJumps(listing: NftListing, n: SpoofNames): number[] {
  return listing.rules
    .filter((r) => r.family === 'bridge' && r.table === SPOOF_TABLE && r.chain === SPOOF_BASE_CHAIN && r.comment === n.comment)
    .map((r) => r.handle);
}

/**
 * One transaction (the reference needs two: its flush would fail on a chain not yet created,
 * while inside one nft transaction the `add chain` comes first). `listing` is of the
 * PREROUTING chain: when it exists the table and base chain are not declared again (that
 * costs the commit an RCU grace period, ~10 ms here), and a jump left by an earlier setup of
 * this attachment is replaced, so a repeated setup leaves one copy of every rule.
 */
export function planSpoofSetup(listing: NftListing, n: SpoofNames, hostIfname: string, mac: string): string {
  const c = `comment "${n.comment}"`;
  const base = listing.chains.some((ch) => ch.family === 'bridge' && ch.table === SPOOF_TABLE && ch.name === SPOOF_BASE_CHAIN && ch.hook === 'prerouting');
  return [
    ...(base ? [] : [`add table ${T}`, `add chain ${T} ${SPOOF_BASE_CHAIN} { type filter hook prerouting priority -300 ; policy accept ; }`]),
    ...ourJumps(listing, n).map((h) => `delete rule ${T} ${SPOOF_BASE_CHAIN} handle ${h}`),
    `add chain ${T} ${n.ifaceChain}`,
    `add chain ${T} ${n.macChain}`,
    `flush chain ${T} ${n.ifaceChain}`,
    `flush chain ${T} ${n.macChain}`,
    `add rule ${T} ${SPOOF_BASE_CHAIN} iifname "${hostIfname}" jump ${n.ifaceChain} ${c}`,
    `add rule ${T} ${n.ifaceChain} jump ${n.macChain} ${c}`,
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
  const lines = ourJumps(listing, n).map((h) => `delete rule ${T} ${SPOOF_BASE_CHAIN} handle ${h}`);
  const present = new Set(listing.chains.filter((c) => c.family === 'bridge' && c.table === SPOOF_TABLE).map((c) => c.name));
  const chains = [n.ifaceChain, n.macChain].filter((name) => present.has(name));
  for (const name of chains) lines.push(`flush chain ${T} ${name}`);
  for (const name of chains) lines.push(`delete chain ${T} ${name}`);
  return lines.length === 0 ? undefined : `${lines.join('\n')}\n`;
}
