// The names and comments the reference plugins give their netfilter objects. They must match
// byte for byte: a DEL by either implementation has to find what the other one created.
// Sources: pkg/utils/utils.go (FormatChainName, FormatComment, MustFormatHashWithPrefix),
// pkg/ip/ipmasq_nftables_linux.go, pkg/link/spoofcheck.go, plugins/main/bridge (uniqueID).
import { hexDigest } from '../../../cni-spec/digest.ts';

/** Leading `n` hex digits of SHA-512(text): the reference's MustFormatHashWithPrefix with no prefix. */
export function hashHex(text: string, n: number): string {
  return hexDigest('sha512', text).slice(0, n);
}

// ---- ipMasq, iptables backend (ifname plays no part, for historical reasons) ----

/** Per-attachment chain in the nat table: "CNI-" + 24 hex of SHA-512(network + containerId), 28 chars. */
export function masqChainName(network: string, containerId: string): string {
  return `CNI-${hashHex(network + containerId, 24)}`;
}

/**
 * Comment on every rule of the chain and on its POSTROUTING jump. Go prints it with %q; for the
 * tokens we accept (validate.ts: no quote, backslash or control character) that is plain quoting.
 */
export function iptablesComment(network: string, containerId: string): string {
  return `name: "${network}" id: "${containerId}"`;
}

// ---- ipMasq, nftables backend ----

export const MASQ_TABLE = 'cni_plugins_masquerade';
export const MASQ_CHAIN = 'masq_checks';
export const MASQ_POSTROUTING = 'postrouting';
export const MASQ_TABLE_COMMENT = 'Masquerading for plugins from github.com/containernetworking/plugins';
export const MASQ_CHAIN_COMMENT = 'Masquerade traffic from certain IPs to any (non-multicast) IP outside their subnet';
/** nft refuses longer comments; knftables (CommentLengthMax) truncates to this. */
export const NFT_COMMENT_MAX = 128;

export function nftNetworkHash(network: string): string {
  return hashHex(network, 16);
}

/** `<hash16(network)>-<hash16(ifname:containerId)>`: the prefix that marks one attachment's rules. */
export function nftInstanceHash(network: string, ifname: string, containerId: string): string {
  return `${nftNetworkHash(network)}-${hashHex(`${ifname}:${containerId}`, 16)}`;
}

/** The rule comment; the reference strips double quotes from the readable part and cuts at 128. */
export function nftMasqComment(network: string, ifname: string, containerId: string): string {
  const clean = (s: string) => s.replaceAll('"', '');
  const full = `${nftInstanceHash(network, ifname, containerId)}, net: ${clean(network)}, if: ${clean(ifname)}, id: ${clean(containerId)}`;
  return full.slice(0, NFT_COMMENT_MAX);
}

// ---- macspoofchk (table bridge nat) ----

export const SPOOF_TABLE = 'nat';
export const SPOOF_BASE_CHAIN = 'PREROUTING';

export interface SpoofNames {
  /** `<containerId>-<ifname>`, the bridge plugin's uniqueID */
  readonly ref: string;
  readonly ifaceChain: string;
  readonly macChain: string;
  readonly comment: string;
}

export const SPOOF_COMMENT_PREFIX = 'macspoofchk-';

export function spoofNames(containerId: string, ifname: string): SpoofNames {
  return spoofNamesOfRef(`${containerId}-${ifname}`);
}

export function spoofNamesOfRef(ref: string): SpoofNames {
  const ifaceChain = `cni-br-iface-${ref}`;
  return { ref, ifaceChain, macChain: `${ifaceChain}-mac`, comment: `${SPOOF_COMMENT_PREFIX}${ref}` };
}

/**
 * Ours, not the reference's: the comment of a no-op rule (`continue`) we add to an
 * attachment's `cni-br-iface-<ref>` chain. The reference's names carry no network, so only
 * this tag proves which network an attachment's chains belong to; GC relies on it. It lives
 * in the chain the reference's DEL deletes, so a Go DEL leaves nothing of it behind.
 */
export function spoofNetworkTag(network: string): string {
  return `cni-net-${hashHex(network, 16)}`;
}

// ---- portmap, iptables backend (plugins/meta/portmap) ----

export const PORTMAP_DNAT_CHAIN = 'CNI-HOSTPORT-DNAT';
export const PORTMAP_SETMARK_CHAIN = 'CNI-HOSTPORT-SETMARK';
export const PORTMAP_MASQ_CHAIN = 'CNI-HOSTPORT-MASQ';
/** Entry chain of the per-container SNAT chains of portmap before v0.8; only torn down. */
export const PORTMAP_OLD_SNAT_CHAIN = 'CNI-HOSTPORT-SNAT';
export const PORTMAP_SETMARK_COMMENT = 'CNI portfwd masquerade mark';
export const PORTMAP_MASQ_COMMENT = 'CNI portfwd requiring masquerade';

/** Per-container chain: "CNI-DN-" + 21 hex of SHA-512(network + containerId), 28 chars (utils.MustFormatChainNameWithPrefix). */
export function portmapDnatChainName(network: string, containerId: string): string {
  return `CNI-DN-${hashHex(network + containerId, 21)}`;
}

/** The legacy per-container SNAT chain, same hash with "SN-". */
export function portmapOldSnatChainName(network: string, containerId: string): string {
  return `CNI-SN-${hashHex(network + containerId, 21)}`;
}

/**
 * Comment of the entry rules in CNI-HOSTPORT-DNAT. The kernel keeps 255 bytes; the reference
 * cuts to 253 + "..." (256, which iptables refuses), we to 252 + "..." (tokens are ASCII).
 */
export function portmapDnatComment(network: string, containerId: string): string {
  const full = `dnat name: "${network}" id: "${containerId}"`;
  return full.length <= 255 ? full : `${full.slice(0, 252)}...`;
}

// ---- portmap, nftables backend (v1.9.x layout) ----

export const PORTMAP_NFT_TABLE = 'cni_hostport';
export const PORTMAP_NFT_TABLE_COMMENT = 'CNI portmap plugin';
/** rules of every mapping, commented with the container id */
export const PORTMAP_NFT_HOSTPORTS = 'hostports';
/** rules with a hostIP before v1.9.0; kept (empty) so an upgrade keeps working */
export const PORTMAP_NFT_HOSTIP_HOSTPORTS = 'hostip_hostports';
/** jumps to both chains above; entered once per packet after the local-address check */
export const PORTMAP_NFT_HOSTPORTS_ALL = 'hostports_all';
export const PORTMAP_NFT_MASQUERADING = 'masquerading';

/**
 * Ours, not the reference's: an unhooked chain per network (never jumped to, so never
 * evaluated) holding one marker rule per container address, `ip daddr <addr> comment "<id>"`.
 * The reference comments its rules with the container id alone, so only the marker proves
 * which network a container's rules in the shared table belong to; GC relies on it.
 */
export function portmapNftNetworkChain(network: string): string {
  return `cni_net_${hashHex(network, 16)}`;
}
