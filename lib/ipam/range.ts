// One host-local range: a subnet, the inclusive [rangeStart, rangeEnd] to allocate from, and
// the gateway the iterator skips (reference https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/host-local/backend/allocator/range.go).
import { bitsOf, formatAddr, formatSubnet, maskOf, networkOf, nextAddr, sameAddr, subnetContains, type Addr, type Subnet } from './addr.ts';
import { ConfigProblem } from './problem.ts';

/** A range as the config gives it; addresses already parsed, every field optional. */
export interface RawRange {
  subnet?: Subnet | undefined;
  rangeStart?: Addr | undefined;
  rangeEnd?: Addr | undefined;
  gateway?: Addr | undefined;
}

export interface Range {
  readonly subnet: Subnet;
  readonly rangeStart: Addr;
  readonly rangeEnd: Addr;
  readonly gateway: Addr;
}

interface Bounds {
  subnet: Subnet;
  rangeStart?: Addr | undefined;
  rangeEnd?: Addr | undefined;
}

/**
 * Whether `a` is in the subnet and between the bounds that are set. Bounds compare as plain
 * numbers whatever their family, as the reference's ip.Cmp does.
 */
export function rangeContains(r: Bounds, a: Addr): boolean {
  if (!subnetContains(r.subnet, a)) return false;
  if (r.rangeStart !== undefined && a.n < r.rangeStart.n) return false;
  if (r.rangeEnd !== undefined && a.n > r.rangeEnd.n) return false;
  return true;
}

/** The reference's String(): "start-end". */
export const formatRange = (r: Range): string => `${formatAddr(r.rangeStart)}-${formatAddr(r.rangeEnd)}`;

/** The last address of the subnet, except the broadcast address for IPv4. */
function lastAddr(s: Subnet): Addr {
  const bits = bitsOf(s.ip);
  const host = ((1n << BigInt(bits)) - 1n) & ~maskOf(s.ones, bits);
  const last = networkOf(s).n | host;
  return { v4: s.ip.v4, n: s.ip.v4 ? last - 1n : last };
}

/**
 * Checks a range and fills in its defaults (reference Range.Canonicalize): gateway and
 * rangeStart default to network+1 (the iterator skips the gateway, so with a custom gateway
 * .1 is allocatable), rangeEnd to the last address (IPv4: before broadcast). The gateway
 * is not required to be inside the subnet. Throws ConfigProblem naming the field.
 */
export function canonicalizeRange(raw: RawRange, path: string): Range {
  const sub = raw.subnet;
  // A range without a subnet reaches the reference as a nil IP.
  if (sub === undefined) throw new ConfigProblem('IP <nil> not v4 nor v6', `${path}.subnet`);
  if (sub.ones > sub.maskBits - 2) {
    throw new ConfigProblem(`Network ${formatSubnet(sub)} too small to allocate from`, `${path}.subnet`);
  }
  if (sub.maskBits !== bitsOf(sub.ip)) throw new ConfigProblem('IPNet IP and Mask version mismatch', `${path}.subnet`);
  const network = networkOf(sub);
  if (!sameAddr(network, sub.ip)) {
    throw new ConfigProblem(
      `Network has host bits set. For a subnet mask of length ${sub.ones} the network address is ${formatAddr(network)}`,
      `${path}.subnet`,
    );
  }
  const subnetText = formatSubnet(sub);
  const gateway = raw.gateway ?? nextAddr(network);
  let rangeStart = raw.rangeStart;
  if (rangeStart !== undefined) {
    // Checked against a given rangeEnd too: a start after the end is "not in network".
    if (!rangeContains({ subnet: sub, rangeStart, rangeEnd: raw.rangeEnd }, rangeStart)) {
      throw new ConfigProblem(`RangeStart ${formatAddr(rangeStart)} not in network ${subnetText}`, `${path}.rangeStart`);
    }
  } else {
    rangeStart = nextAddr(network);
  }
  let rangeEnd = raw.rangeEnd;
  if (rangeEnd !== undefined) {
    if (!rangeContains({ subnet: sub, rangeStart, rangeEnd }, rangeEnd)) {
      throw new ConfigProblem(`RangeEnd ${formatAddr(rangeEnd)} not in network ${subnetText}`, `${path}.rangeEnd`);
    }
  } else {
    rangeEnd = lastAddr(sub);
  }
  return Object.freeze({ subnet: sub, rangeStart, rangeEnd, gateway });
}

/** Same family, and one range holds an end of the other. */
export function rangesOverlap(a: Range, b: Range): boolean {
  if (a.rangeStart.v4 !== b.rangeStart.v4) return false;
  return rangeContains(a, b.rangeStart) || rangeContains(a, b.rangeEnd) || rangeContains(b, a.rangeStart) || rangeContains(b, a.rangeEnd);
}

/** The address as the result shows it: with the range's prefix length. */
export const formatInRange = (a: Addr, r: Range): string => `${formatAddr(a)}/${r.subnet.ones}`;
