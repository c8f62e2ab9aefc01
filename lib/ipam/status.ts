// STATUS for host-local (spec 1.1.0; the reference has none): can the next ADD be served?
// Counted, not walked, so a /64 costs no more than a /30.
import { sameAddr, type Addr } from './addr.ts';
import type { RangeSet } from './range-set.ts';
import { rangeContains, type Range } from './range.ts';

const allocatable = (r: Range, a: Addr): boolean => rangeContains(r, a) && !sameAddr(a, r.gateway);

/** How many addresses the iterator can hand out from the set: every range minus its gateway. */
export function capacityOf(set: RangeSet): bigint {
  let n = 0n;
  for (const r of set) {
    n += r.rangeEnd.n - r.rangeStart.n + 1n;
    if (rangeContains(r, r.gateway)) n -= 1n;
  }
  return n;
}

/** Indexes of the sets where every allocatable address is taken by one of `used`. */
export function exhaustedSets(sets: readonly RangeSet[], used: readonly Addr[]): number[] {
  const out: number[] = [];
  sets.forEach((set, i) => {
    const taken = used.filter((a) => set.some((r) => allocatable(r, a))).length;
    if (BigInt(taken) >= capacityOf(set)) out.push(i);
  });
  return out;
}
