// What the firewall rules are made from, in every backend: one attachment's addresses, the
// bridge it hangs off and the ingress policy. Built by the plugin's loadConf; every token is
// validated there and again (validateFirewallTarget) before it reaches a rule.
import { CniError, ErrorCode } from '../../../cni-spec/errors.ts';
import { goQuote } from '../../../cni-spec/go-json.ts';
import { ipBytes } from '../../../cni-spec/ip-bytes.ts';
import { IPTABLES_CHAIN_RE, validateContainerIdToken, validateIfnameIdent, validateIfnameToken, validateNetworkToken } from '../core/validate.ts';

export type FirewallBackend = 'iptables' | 'nftables' | 'firewalld';
export const FIREWALL_BACKENDS: readonly FirewallBackend[] = ['iptables', 'nftables', 'firewalld'];
/** The reference's policies of v1.1.1 ("isolated" came later and is not implemented here). */
export type IngressPolicy = 'open' | 'same-bridge';

export interface FirewallAddr {
  readonly family: 4 | 6;
  /** canonical address text, no prefix */
  readonly ip: string;
}

export interface FirewallTarget {
  readonly network: string;
  readonly containerId: string;
  readonly ifname: string;
  /** every address of prevResult, in its order (the reference allows them all, whatever their interface) */
  readonly addrs: readonly FirewallAddr[];
  readonly ingressPolicy: IngressPolicy;
  /** prevResult.interfaces[0].name: the bridge (same-bridge only) */
  readonly bridge?: string;
  /** iptables: the chain CNI-FORWARD jumps to first ("CNI-ADMIN") */
  readonly adminChain: string;
  /** firewalld: the zone the addresses are put in ("trusted") */
  readonly zone: string;
}

/** firewalld zone names: what firewalld itself accepts in a zone file name, at most 17 characters. */
export const FIREWALLD_ZONE_RE = /^[A-Za-z0-9_-]{1,17}$/;

export const familiesOf = (t: FirewallTarget): (4 | 6)[] => ([4, 6] as const).filter((f) => t.addrs.some((a) => a.family === f));

/** The target's addresses of `family` as the kernel compares them (network byte order); undefined for text that is no address. */
export const addrBytesOf = (t: FirewallTarget, family: 4 | 6): (Buffer | undefined)[] =>
  t.addrs.filter((a) => a.family === family).map((a) => ipBytes(a.ip)?.bytes);

/** Defence in depth: loadConf checked all of this already, with field names. */
export function validateFirewallTarget(t: FirewallTarget): void {
  validateNetworkToken(t.network);
  validateContainerIdToken(t.containerId);
  validateIfnameToken(t.ifname);
  const bad = (msg: string) => new CniError(ErrorCode.InvalidNetworkConfig, msg);
  if (!IPTABLES_CHAIN_RE.test(t.adminChain)) throw bad(`invalid iptablesAdminChainName ${goQuote(t.adminChain)}`);
  if (!FIREWALLD_ZONE_RE.test(t.zone)) throw bad(`invalid firewalldZone ${goQuote(t.zone)}`);
  if (t.bridge !== undefined) validateIfnameIdent(t.bridge);
  for (const a of t.addrs) if (!/^[0-9a-f.:]+$/.test(a.ip)) throw bad(`invalid IP address ${goQuote(a.ip)}`);
}
