// IP text <-> the byte form netlink attributes carry: 4 bytes for IPv4, 16 for IPv6, and the
// family as written, so "::ffff:192.0.2.1" stays an IPv6 address for the kernel as it does for
// iproute2. The text rules themselves are lib/cni-spec/ip.ts (Go's); this only reshapes.
import { formatIP, isV4, parseCIDRAsWritten, parseIP, type IP16 } from './ip.ts';

export type IpFamily = 4 | 6;

export interface CidrBytes {
  family: IpFamily;
  bytes: Buffer;
  prefixLen: number;
}

const toBytes = (ip: IP16, family: IpFamily): Buffer => Buffer.from(family === 4 ? ip.subarray(12) : ip);

/** Parses a plain address (no zone, no prefix). */
export function ipBytes(s: string): { family: IpFamily; bytes: Buffer } | undefined {
  const ip = parseIP(s);
  if (ip === undefined) return undefined;
  const family = s.includes(':') ? 6 : 4;
  return { family, bytes: toBytes(ip, family) };
}

/** Parses "10.1.2.3/24" or "fd00::2/64"; the host bits are kept (it names an interface address). */
export function cidrBytes(s: string): CidrBytes | undefined {
  const c = parseCIDRAsWritten(s);
  // At most three prefix digits: this layer has always refused a zero-padded "/0024", which
  // Go would read as /24. What reaches it is canonical text, so only the unit test can tell.
  if (c === undefined || !/\/\d{1,3}$/.test(s)) return undefined;
  const family = c.bits === 32 ? 4 : 6;
  return { family, bytes: toBytes(c.ip, family), prefixLen: c.ones };
}

/**
 * RFC 5952 text (Go's, lower case, longest run of two or more zero groups as "::"), except that
 * an IPv4-mapped IPv6 address keeps its "::ffff:" as inet_ntop and iproute2 print it.
 */
export function formatIpBytes(bytes: Uint8Array): string {
  if (bytes.length === 16 && isV4(bytes)) return `::ffff:${formatIP(bytes)}`;
  return formatIP(bytes);
}
