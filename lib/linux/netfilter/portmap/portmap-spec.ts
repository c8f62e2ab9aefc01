// What the portmap rules are made from, in both backends: the mappings and options of one
// container, and its addresses. Built by the plugin's loadConf; every token is validated
// there and again (validatePortmapTarget) before it reaches a rule.
import { isV4, parseCIDR, parseIP, formatIP } from '../../../cni-spec/ip.ts';
import { maskBytes } from '../../../cni-spec/cidr-math.ts';

export type PortProtocol = 'tcp' | 'udp' | 'sctp';
export const PORT_PROTOCOLS: readonly PortProtocol[] = ['tcp', 'udp', 'sctp'];

export interface PortMapping {
  readonly hostPort: number;
  readonly containerPort: number;
  readonly protocol: PortProtocol;
  /** canonical address text; absent: any address */
  readonly hostIP?: string;
}

export interface PortmapTarget {
  readonly network: string;
  readonly containerId: string;
  readonly mappings: readonly PortMapping[];
  readonly snat: boolean;
  readonly masqAll: boolean;
  /** iptables only */
  readonly markMasqBit: number;
  /** iptables only: jump here instead of CNI-HOSTPORT-SETMARK */
  readonly externalSetMarkChain?: string;
  readonly conditionsV4: readonly string[];
  readonly conditionsV6: readonly string[];
}

export interface ContainerAddr {
  readonly family: 4 | 6;
  /** the address alone, canonical */
  readonly ip: string;
  /** its subnet, host bits cleared, as iptables-save prints a source match: "10.0.0.0/24" */
  readonly subnet: string;
}

/** "10.0.0.2/24" → {family 4, ip 10.0.0.2, subnet 10.0.0.0/24}; undefined if not a CIDR. */
export function containerAddr(cidr: string): ContainerAddr | undefined {
  const c = parseCIDR(cidr);
  if (c === undefined) return undefined;
  const v4 = isV4(c.ip);
  return { family: v4 ? 4 : 6, ip: formatIP(c.ip), subnet: `${formatIP(maskBytes(v4 ? c.ip.subarray(12) : c.ip, c.prefix))}/${c.prefix}` };
}

export function ipFamily(ip: string): 4 | 6 | undefined {
  const b = parseIP(ip);
  return b === undefined ? undefined : isV4(b) ? 4 : 6;
}

const isUnspecified = (ip: string): boolean => ip === '0.0.0.0' || ip === '::';

/**
 * The mappings that apply to an address of `family`, each with the destination it is limited
 * to: a hostIP of the other family skips the mapping; 0.0.0.0 and :: mean any address.
 */
export function mappingsFor(t: PortmapTarget, family: 4 | 6): { m: PortMapping; dst: string | undefined }[] {
  const out: { m: PortMapping; dst: string | undefined }[] = [];
  for (const m of t.mappings) {
    if (m.hostIP === undefined) {
      out.push({ m, dst: undefined });
      continue;
    }
    if (ipFamily(m.hostIP) !== family) continue;
    out.push({ m, dst: isUnspecified(m.hostIP) ? undefined : m.hostIP });
  }
  return out;
}

export function conditionsFor(t: PortmapTarget, family: 4 | 6): readonly string[] {
  return family === 4 ? t.conditionsV4 : t.conditionsV6;
}

/** "10.0.0.2:80", "[2001:db8::2]:80": the DNAT destination as both iptables and nft write it. */
export function hostPortText(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
