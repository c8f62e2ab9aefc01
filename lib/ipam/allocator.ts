// Taking one address from a range set, and choosing what a release removes, as the
// reference does (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/host-local/backend/allocator/allocator.go).
// The store must be locked by the caller.
import { formatAddr, sameAddr, type Addr } from './addr.ts';
import { candidates } from './iterator.ts';
import { formatRangeSet, rangeFor, setContains, type RangeSet } from './range-set.ts';
import type { Range } from './range.ts';
import { legacyKey, ownerKey, type Allocation, type Store } from './store.ts';

export interface Allocated {
  readonly ip: Addr;
  readonly range: Range;
}

/** The allocations an attachment holds, in the current or the old file format. */
export function ownedBy(all: readonly Allocation[], containerId: string, ifname: string): Allocation[] {
  const key = ownerKey(containerId, ifname);
  const legacy = legacyKey(containerId);
  return all.filter((a) => a.key === key || a.key === legacy);
}

/** The attachment asking, and the addresses it already holds. */
export interface Claimant {
  readonly containerId: string;
  readonly ifname: string;
  readonly owned: readonly Allocation[];
}

/** One range set (by its index in the config) and the address requested in it, if any. */
export interface SetRequest {
  readonly set: RangeSet;
  readonly setIndex: number;
  readonly requested: Addr | undefined;
}

/**
 * One address from `set` for the attachment: the requested one (never the gateway), or the
 * next free one in round-robin order. An attachment already holding an address of this set
 * gets an error rather than a second one (the spec forbids duplicate allocation).
 */
export function allocateInSet(store: Store, who: Claimant, { set, setIndex, requested }: SetRequest): Allocated {
  const { containerId, ifname, owned } = who;
  if (requested !== undefined) {
    const range = rangeFor(set, requested);
    if (range === undefined) throw new Error(`${formatAddr(requested)} not in range set ${formatRangeSet(set)}`);
    if (sameAddr(requested, range.gateway)) throw new Error(`requested ip ${formatAddr(requested)} is subnet's gateway`);
    if (!store.reserve(containerId, ifname, requested)) {
      throw new Error(`requested IP address ${formatAddr(requested)} is not available in range set ${formatRangeSet(set)}`);
    }
    return { ip: requested, range };
  }
  const dup = owned.find((a) => setContains(set, a.ip));
  if (dup !== undefined) throw new Error(`${formatAddr(dup.ip)} has been allocated to ${containerId}, duplicate allocation is not allowed`);
  for (const c of candidates(set, store.lastReserved(setIndex))) {
    if (store.reserve(containerId, ifname, c.ip)) return c;
  }
  throw new Error(`no IP addresses available in range set: ${formatRangeSet(set)}`);
}

/**
 * What releasing an attachment removes. The reference releases once per range set: each pass
 * removes the files in the current format and, when it found none, the old-format files of
 * the container. So old-format files go when nothing current matched, and always when the
 * network has two or more range sets (the second pass finds nothing current left).
 */
export function planRelease(all: readonly Allocation[], containerId: string, ifname: string, passes: number): Allocation[] {
  if (passes <= 0) return [];
  const key = ownerKey(containerId, ifname);
  const legacy = legacyKey(containerId);
  const current = all.filter((a) => a.key === key);
  const old = current.length === 0 || passes >= 2 ? all.filter((a) => a.key === legacy) : [];
  return [...current, ...old];
}
