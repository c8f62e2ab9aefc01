// IP text <-> the byte form netlink attributes carry. Pure, no imports: kept
// here rather than pulling a parsing library into every plugin start.

export type IpFamily = 4 | 6;

export interface ParsedCidr {
  family: IpFamily;
  bytes: Buffer;
  prefixLen: number;
}

const V4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const V6_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4(s: string): Buffer | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => V4_PART.test(p))) return undefined;
  return Buffer.from(parts.map(Number));
}

function parseIpv6(s: string): Buffer | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups: number[][] = [];
  for (let h = 0; h < halves.length; h++) {
    const half = halves[h] ?? '';
    const out: number[] = [];
    const parts = half === '' ? [] : half.split(':');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i] ?? '';
      if (V6_GROUP.test(p)) {
        const n = parseInt(p, 16);
        out.push(n >> 8, n & 0xff);
      } else if (i === parts.length - 1 && h === halves.length - 1) {
        // A trailing dotted quad (::ffff:192.0.2.1) fills the last 32 bits.
        const v4 = parseIpv4(p);
        if (!v4) return undefined;
        out.push(...v4);
      } else {
        return undefined;
      }
    }
    groups.push(out);
  }
  const head = groups[0] ?? [];
  const tail = groups[1] ?? [];
  if (halves.length === 1) return head.length === 16 ? Buffer.from(head) : undefined;
  // "::" stands for at least one zero group.
  if (head.length + tail.length > 14) return undefined;
  const bytes = Buffer.alloc(16);
  bytes.set(head, 0);
  bytes.set(tail, 16 - tail.length);
  return bytes;
}

/** Parses a plain address (no zone, no prefix). */
export function parseIp(s: string): { family: IpFamily; bytes: Buffer } | undefined {
  if (s.includes(':')) {
    const bytes = parseIpv6(s);
    return bytes && { family: 6, bytes };
  }
  const bytes = parseIpv4(s);
  return bytes && { family: 4, bytes };
}

/** Parses "10.1.2.3/24" or "fd00::2/64"; the host bits are kept (it names an interface address). */
export function parseCidr(s: string): ParsedCidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIp(s.slice(0, slash));
  const len = s.slice(slash + 1);
  if (!ip || !/^\d{1,3}$/.test(len)) return undefined;
  const prefixLen = Number(len);
  if (prefixLen > (ip.family === 4 ? 32 : 128)) return undefined;
  return { ...ip, prefixLen };
}

/** RFC 5952 text: lower case, longest run of two or more zero groups as "::". */
export function formatIp(bytes: Uint8Array): string {
  if (bytes.length === 4) return Array.from(bytes).join('.');
  if (bytes.length !== 16) throw new TypeError(`not an IP address: ${bytes.length} bytes`);
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  // IPv4-mapped addresses read as their IPv4 tail, as inet_ntop and iproute2 print them.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `::ffff:${Array.from(bytes.subarray(12)).join('.')}`;
  }
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
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
