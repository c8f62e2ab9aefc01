// Every token that ends up in a rule, a chain name or a comment is checked here first, even
// though the dispatcher already checked the container id and ifname: the rules are written as
// text for nft and iptables-restore, so a stray quote or newline would change their meaning.
import { isValidName } from '../../../cni-spec/env.ts';
import { CniError, ErrorCode } from '../../../cni-spec/errors.ts';
import { formatIP, isV4, parseCIDR } from '../../../cni-spec/ip.ts';
import { maskBytes } from '../../../cni-spec/cidr-math.ts';
import { formatMac, parseMac } from '../../mac.ts';
import { iptablesComment, NFT_COMMENT_MAX, spoofNames } from './names.ts';

// What nft reads as an unquoted identifier (its scanner has no quoted chain names): the
// spoof-check chain names embed the ifname, so it must stay inside this set.
const IDENT_CHARS_RE = /^[a-zA-Z0-9_.-]+$/;
// Printable ASCII without the characters that quote or escape in nft/iptables-restore input.
const PRINTABLE_RE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const MAX_IFNAME = 15; // IFNAMSIZ - 1
const IPTABLES_COMMENT_MAX = 255; // XT_MAX_COMMENT_LEN - 1

const q = JSON.stringify;

function configError(msg: string): CniError {
  return new CniError(ErrorCode.InvalidNetworkConfig, msg);
}

function envError(msg: string): CniError {
  return new CniError(ErrorCode.InvalidEnvironmentVariables, msg);
}

export function validateNetworkToken(network: string): void {
  if (!isValidName(network)) throw configError(`invalid network name ${q(network)} for netfilter rules`);
}

export function validateContainerIdToken(id: string): void {
  if (!isValidName(id)) throw envError(`invalid container id ${q(id)} for netfilter rules`);
}

/** An interface name that only goes into a comment or a quoted nft string. */
export function validateIfnameToken(name: string): void {
  if (name.length > MAX_IFNAME || !PRINTABLE_RE.test(name) || /[/:]/.test(name) || name === '.' || name === '..') {
    throw envError(`invalid interface name ${q(name)} for netfilter rules`);
  }
}

/** An interface name that also becomes part of an nft chain name. */
export function validateIfnameIdent(name: string): void {
  validateIfnameToken(name);
  if (!IDENT_CHARS_RE.test(name)) {
    throw envError(`interface name ${q(name)} cannot be used in an nftables chain name (only letters, digits, "_", "." and "-")`);
  }
}

/** The iptables backend comment must fit the kernel's comment match. */
export function validateIptablesComment(network: string, containerId: string): void {
  if (Buffer.byteLength(iptablesComment(network, containerId)) > IPTABLES_COMMENT_MAX) {
    throw configError(`network name and container id are too long for an iptables comment (${IPTABLES_COMMENT_MAX} bytes)`);
  }
}

/** The spoof-check comment carries the whole `<containerId>-<ifname>`, and nft caps comments at 128. */
export function validateSpoofRef(containerId: string, ifname: string): void {
  validateContainerIdToken(containerId);
  validateIfnameIdent(ifname);
  const { comment } = spoofNames(containerId, ifname);
  if (comment.length > NFT_COMMENT_MAX) {
    throw envError(`container id ${q(containerId)} is too long for the spoof-check rule comment (${NFT_COMMENT_MAX} characters)`);
  }
}

/**
 * Lower case, as Go's net.HardwareAddr prints it. Only the colon form: the MAC comes from a
 * result, where Go always writes it that way.
 */
export function normalizeMac(mac: string): string {
  const bytes = mac.includes(':') ? parseMac(mac) : undefined;
  if (bytes === undefined) throw configError(`invalid MAC address ${q(mac)} for the spoof check`);
  return formatMac(bytes);
}

export interface MasqAddr {
  readonly family: 4 | 6;
  /** the container address alone, Go's canonical text */
  readonly ip: string;
  /** the subnet it lives in, host bits cleared: "10.22.0.0/16" */
  readonly subnet: string;
  /** prefix length, as Go prints it (of the IPv4 mask for IPv4) */
  readonly prefix: number;
}

/** Parses the result's CIDRs ("10.22.0.5/16") the way Go's net.IPNet reads them. */
export function parseMasqAddrs(cidrs: readonly string[]): MasqAddr[] {
  return cidrs.map((s) => {
    const c = parseCIDR(s);
    if (c === undefined) throw configError(`invalid IP address ${q(s)} for ipMasq (want address/prefix)`);
    const v4 = isV4(c.ip);
    const masked = maskBytes(v4 ? c.ip.subarray(12) : c.ip, c.prefix);
    return { family: v4 ? 4 : 6, ip: formatIP(c.ip), subnet: `${formatIP(masked)}/${c.prefix}`, prefix: c.prefix };
  });
}

// ---- portmap ----

/**
 * A condition token (conditionsV4/V6) goes verbatim into an iptables-restore line or an nft
 * rule: no quote, backslash, `;` (an nft command separator), `#`, `$`, newline or other
 * control character can get through, so a token cannot end the rule or start another.
 */
export const CONDITION_TOKEN_RE = /^[A-Za-z0-9 _.:/,!=<>{}[\]()+*%&|~^@-]+$/;
/**
 * The longest condition we pass on. Neither tool states a limit, but a condition is a few
 * matches (the reference's examples are under 100 bytes); a megabyte one only fails later, in
 * nft's or iptables' parser, so it is refused with the field's name before anything runs.
 */
export const CONDITION_MAX_LEN = 4096;
/**
 * iptables chain names (XT_EXTENSION_MAXNAMELEN - 1). A leading "-" would be read as an option
 * where the name follows `-j` (iptables refuses such names for `-N` too).
 */
export const IPTABLES_CHAIN_RE = /^[A-Za-z0-9_.][A-Za-z0-9_.-]{0,27}$/;
/** nft comments are at most 128 bytes; the portmap rules carry the container id in one. */
export const NFT_PORTMAP_COMMENT_MAX = NFT_COMMENT_MAX;
