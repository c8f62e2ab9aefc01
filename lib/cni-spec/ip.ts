// IP and CIDR text the way Go's net package reads and prints it. Results pass through Go's
// net.IP / net.IPNet in the reference, so what a runtime sees is Go's canonical text
// (lower-case, RFC 5952 compression, IPv4-mapped shown as IPv4); we print the same.

/** 16 bytes, IPv4 stored IPv4-mapped like Go's net.IP. */
export type IP16 = Uint8Array;

const V4_OCTET = /^(0|[1-9]\d{0,2})$/; // Go rejects leading zeros since 1.17

function parseV4(s: string, out: IP16, at: number): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i] as string;
    if (!V4_OCTET.test(p) || Number(p) > 255) return false;
    out[at + i] = Number(p);
  }
  return true;
}

const HEX4 = /^[0-9a-fA-F]{1,4}$/;

// 16-bit words of one side of '::'; only the last group of the address may be dotted IPv4.
function words(h: string, v4Tail: boolean): number[] | undefined {
  if (h === '') return [];
  const groups = h.split(':');
  const out: number[] = [];
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i] as string;
    if (v4Tail && i === groups.length - 1 && g.includes('.')) {
      const b = new Uint8Array(16);
      if (!parseV4(g, b, 12)) return undefined;
      out.push((b[12]! << 8) | b[13]!, (b[14]! << 8) | b[15]!);
    } else if (HEX4.test(g)) {
      out.push(parseInt(g, 16));
    } else {
      return undefined;
    }
  }
  return out;
}

function parseV6(s: string, out: IP16): boolean {
  const halves = s.split('::');
  let all: number[];
  if (halves.length === 1) {
    const w = words(s, true);
    if (w === undefined || w.length !== 8) return false;
    all = w;
  } else if (halves.length === 2) {
    const head = words(halves[0] as string, false);
    const tail = words(halves[1] as string, true);
    if (head === undefined || tail === undefined || head.length + tail.length > 7) return false;
    all = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    return false;
  }
  all.forEach((w, i) => {
    out[2 * i] = w >> 8;
    out[2 * i + 1] = w & 0xff;
  });
  return true;
}

/** Go's net.ParseIP: undefined when invalid (zones are not accepted). */
export function parseIP(s: string): IP16 | undefined {
  const out = new Uint8Array(16);
  if (s.includes(':')) return parseV6(s, out) ? out : undefined;
  out[10] = 0xff;
  out[11] = 0xff;
  return parseV4(s, out, 12) ? out : undefined;
}

/** Go's IP.To4() != nil: IPv4 and IPv4-mapped IPv6 both count as IPv4. */
export function isV4(ip: IP16): boolean {
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return false;
  return ip[10] === 0xff && ip[11] === 0xff;
}

/**
 * Go's IP.String for a 16-byte IP, or for the 4 bytes of an IPv4 address (Go's net.IP takes
 * both lengths too).
 */
export function formatIP(ip: Uint8Array): string {
  if (ip.length === 4) return ip.join('.');
  if (ip.length !== 16) throw new TypeError(`not an IP address: ${ip.length} bytes`);
  if (isV4(ip)) return `${ip[12]}.${ip[13]}.${ip[14]}.${ip[15]}`;
  // A loop, not Array.from: its first call costs a fresh Bun process 0.3–1 ms (measured).
  const w: number[] = [];
  for (let i = 0; i < 16; i += 2) w.push((ip[i]! << 8) | ip[i + 1]!);
  // Longest run of two or more zero words, the first one on a tie (netip's string6).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  const hex = (a: number[]): string => a.map((x) => x.toString(16)).join(':');
  if (best < 0) return hex(w);
  return `${hex(w.slice(0, best))}::${hex(w.slice(best + bestLen))}`;
}

/**
 * A CIDR as written, before Go's IPNet folds IPv4-mapped addresses into IPv4: the prefix
 * length as written and the length of the mask Go builds from the text (128 whenever the
 * address is written as IPv6, 32 otherwise). The kernel and the allocator need this form.
 */
export interface WrittenCidr {
  ip: IP16;
  ones: number;
  bits: 32 | 128;
}

/** Go's net.ParseCIDR acceptance (host bits kept); undefined when Go would reject the text. */
export function parseCIDRAsWritten(s: string): WrittenCidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const addr = s.slice(0, slash);
  const digits = s.slice(slash + 1);
  const ip = parseIP(addr);
  if (ip === undefined || !/^\d+$/.test(digits)) return undefined;
  const ones = Number(digits);
  const bits = addr.includes(':') ? 128 : 32;
  return ones > bits ? undefined : { ip, ones, bits };
}

export interface Cidr {
  ip: IP16;
  /** prefix length as Go prints it: of the IPv4 mask for IPv4 (and IPv4-mapped) addresses */
  prefix: number;
}

/** Go's types.ParseCIDR: keeps the host bits of the address. */
export function parseCIDR(s: string): Cidr | undefined {
  const c = parseCIDRAsWritten(s);
  if (c === undefined) return undefined;
  // An IPv4-mapped address with a 128-bit mask prints as IPv4 with the mask's last 32 bits.
  return { ip: c.ip, prefix: c.bits === 128 && isV4(c.ip) ? Math.max(0, c.ones - 96) : c.ones };
}

export function formatCIDR(c: Cidr): string {
  return `${formatIP(c.ip)}/${c.prefix}`;
}

/** Canonical Go text of an IP, or undefined when Go would reject it. */
export function canonicalIP(s: string): string | undefined {
  const ip = parseIP(s);
  return ip && formatIP(ip);
}

/** Canonical Go text of a CIDR (host bits kept), or undefined when Go would reject it. */
export function canonicalCIDR(s: string): string | undefined {
  const c = parseCIDR(s);
  return c && formatCIDR(c);
}
