// Addresses as numbers, for the allocator's arithmetic (next address, ranges, masks).
// Parsing and printing go through lib/cni-spec's Go-exact text rules, so a file we name
// after an address is the file the reference names after it.
import { formatIP, isV4, parseCIDRAsWritten, parseIP, type IP16 } from '../cni-spec/ip.ts';

/** An IPv4 address (32-bit value; IPv4-mapped IPv6 counts as IPv4, like Go's To4) or IPv6. */
export interface Addr {
  readonly v4: boolean;
  readonly n: bigint;
}

export const bitsOf = (a: Addr): 32 | 128 => (a.v4 ? 32 : 128);

export function toAddr(ip: IP16): Addr {
  const v4 = isV4(ip);
  let n = 0n;
  for (let i = v4 ? 12 : 0; i < 16; i++) n = (n << 8n) | BigInt(ip[i] as number);
  return { v4, n };
}

/** Go's net.ParseIP: undefined for anything it rejects. */
export function parseAddr(s: string): Addr | undefined {
  const ip = parseIP(s);
  return ip && toAddr(ip);
}

export function formatAddr(a: Addr): string {
  const ip = new Uint8Array(16);
  if (a.v4) {
    ip[10] = 0xff;
    ip[11] = 0xff;
  }
  let n = a.n;
  for (let i = 15; i >= (a.v4 ? 12 : 0); i--) {
    ip[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return formatIP(ip);
}

export const sameAddr = (a: Addr, b: Addr): boolean => a.v4 === b.v4 && a.n === b.n;

/** The following address (pkg/ip NextIP); wraps within the family, which ranges never reach. */
export function nextAddr(a: Addr): Addr {
  const max = (1n << BigInt(bitsOf(a))) - 1n;
  return { v4: a.v4, n: (a.n + 1n) & max };
}

export function maskOf(prefix: number, bits: 32 | 128): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  const host = BigInt(bits - Math.min(prefix, bits));
  return (all >> host) << host;
}

/**
 * A subnet as written: `ip` keeps its host bits, `ones` is the prefix length as written and
 * `maskBits` the length of the mask Go builds from the text (128 whenever the text is IPv6,
 * even for an IPv4-mapped address, whose canonical IP is then 4 bytes: a mismatch the
 * reference refuses).
 */
export interface Subnet {
  readonly ip: Addr;
  readonly ones: number;
  readonly maskBits: 32 | 128;
}

/** Go's net.ParseCIDR acceptance; undefined when Go would reject the text. */
export function parseSubnet(s: string): Subnet | undefined {
  const c = parseCIDRAsWritten(s);
  return c && { ip: toAddr(c.ip), ones: c.ones, maskBits: c.bits };
}

/** net.IPNet's String(): the address as stored, then the prefix length. */
export const formatSubnet = (s: Subnet): string => `${formatAddr(s.ip)}/${s.ones}`;

/** The network address (the IP with its host bits cleared). */
export function networkOf(s: Subnet): Addr {
  return { v4: s.ip.v4, n: s.ip.n & maskOf(s.ones, bitsOf(s.ip)) };
}

/** net.IPNet.Contains: same family and same network bits. */
export function subnetContains(s: Subnet, a: Addr): boolean {
  if (a.v4 !== s.ip.v4) return false;
  const m = maskOf(s.ones, bitsOf(a));
  return (a.n & m) === (s.ip.n & m);
}
