// Prefix arithmetic on the byte form of addresses. Pure.
import { formatIpBytes, cidrBytes, ipBytes, type CidrBytes } from './ip-bytes.ts';

/** The address with its host bits cleared. */
export function maskBytes(bytes: Uint8Array, prefixLen: number): Buffer {
  const out = Buffer.from(bytes);
  for (let bit = prefixLen; bit < out.length * 8; bit++) {
    const i = bit >> 3;
    out[i] = (out[i] ?? 0) & ~(0x80 >> (bit & 7));
  }
  return out;
}

/** The IPv4 broadcast address of an address/prefix (all host bits set). */
export function ipv4Broadcast(bytes: Uint8Array, prefixLen: number): Buffer {
  const out = Buffer.from(bytes);
  for (let bit = prefixLen; bit < 32; bit++) {
    const i = bit >> 3;
    out[i] = (out[i] ?? 0) | (0x80 >> (bit & 7));
  }
  return out;
}

/** The next address (wrapping at the end of the family's space, as Go's ip.NextIP does). */
export function nextIp(bytes: Uint8Array): Buffer {
  const out = Buffer.from(bytes);
  for (let i = out.length - 1; i >= 0; i--) {
    out[i] = ((out[i] ?? 0) + 1) & 0xff;
    if (out[i] !== 0) break;
  }
  return out;
}

/** Whether ip (same family) lies inside the prefix. */
export function prefixContains(net: CidrBytes, ip: Uint8Array): boolean {
  return ip.length === net.bytes.length && maskBytes(ip, net.prefixLen).equals(maskBytes(net.bytes, net.prefixLen));
}

/** "10.1.2.3/24" → "10.1.2.0/24"; undefined for bad input. */
export function networkCidr(cidr: string): string | undefined {
  const c = cidrBytes(cidr);
  return c && `${formatIpBytes(maskBytes(c.bytes, c.prefixLen))}/${c.prefixLen}`;
}

/** The first address after the network address: the reference's default gateway (calcGatewayIP). */
export function firstHost(cidr: string): string | undefined {
  const c = cidrBytes(cidr);
  return c && formatIpBytes(nextIp(maskBytes(c.bytes, c.prefixLen)));
}

/** Same address, written either way ("::ffff:1.2.3.4" vs "1.2.3.4" aside). */
export function sameIp(a: string, b: string): boolean {
  const x = ipBytes(a);
  const y = ipBytes(b);
  return x !== undefined && y !== undefined && x.bytes.equals(y.bytes);
}
