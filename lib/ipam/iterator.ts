// The candidate order of host-local's round-robin (reference RangeIter), pure: the store
// decides which candidate is free. A crash-looping container does not get the same address
// back until the whole set has been walked.
import { nextAddr, sameAddr, type Addr } from './addr.ts';
import { rangeFor, type RangeSet } from './range-set.ts';
import type { Range } from './range.ts';

export interface Candidate {
  readonly ip: Addr;
  readonly range: Range;
}

/**
 * Every allocatable address of the set once, starting right after `lastReserved` when that
 * lies in the set (it comes last), otherwise at the first range's start. Ranges follow each
 * other and wrap around; each range's gateway is skipped.
 */
export function* candidates(set: RangeSet, lastReserved: Addr | undefined): Generator<Candidate> {
  let idx = 0;
  let cur: Addr | undefined;
  let start: Addr | undefined;
  const from = lastReserved && rangeFor(set, lastReserved);
  if (lastReserved !== undefined && from !== undefined) {
    idx = set.indexOf(from);
    cur = lastReserved;
  }
  for (;;) {
    let r = set[idx] as Range;
    if (cur === undefined) {
      cur = r.rangeStart;
      start = cur;
    } else {
      if (sameAddr(cur, r.rangeEnd)) {
        idx = (idx + 1) % set.length;
        r = set[idx] as Range;
        cur = r.rangeStart;
      } else {
        cur = nextAddr(cur);
      }
      if (start === undefined) start = cur;
      else if (sameAddr(cur, start)) return;
    }
    if (!sameAddr(cur, r.gateway)) yield { ip: cur, range: r };
  }
}
