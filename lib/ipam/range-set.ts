// A range set: the pool one address is allocated from (one element of `ranges`). Sets are
// how host-local does dual-stack: one set per address to hand out.
import type { Addr } from './addr.ts';
import { ConfigProblem } from './problem.ts';
import { canonicalizeRange, formatRange, rangeContains, rangesOverlap, type RawRange, type Range } from './range.ts';

export type RangeSet = readonly Range[];

/**
 * The ranges of a set checked and completed (reference RangeSet.Canonicalize). `rangePath`
 * names where range i sits in the config, for the error.
 */
export function canonicalizeRangeSet(raw: readonly RawRange[], path: string, rangePath: (i: number) => string = (i) => `${path}[${i}]`): RangeSet {
  if (raw.length === 0) throw new ConfigProblem('empty range set', path);
  const set = raw.map((r, i) => canonicalizeRange(r, rangePath(i)));
  const v4 = (set[0] as Range).rangeStart.v4;
  set.forEach((r, i) => {
    if (r.rangeStart.v4 !== v4) throw new ConfigProblem('mixed address families', rangePath(i));
  });
  for (let i = 0; i < set.length - 1; i++) {
    for (let j = i + 1; j < set.length; j++) {
      const a = set[i] as Range;
      const b = set[j] as Range;
      if (rangesOverlap(a, b)) throw new ConfigProblem(`subnets ${formatRange(a)} and ${formatRange(b)} overlap`, rangePath(j));
    }
  }
  return Object.freeze(set);
}

/** The range of the set that holds `a` between its start and end. */
export function rangeFor(set: RangeSet, a: Addr): Range | undefined {
  return set.find((r) => rangeContains(r, a));
}

export const setContains = (set: RangeSet, a: Addr): boolean => rangeFor(set, a) !== undefined;

export const setsOverlap = (a: RangeSet, b: RangeSet): boolean => a.some((r) => b.some((r1) => rangesOverlap(r, r1)));

export const isV4Set = (set: RangeSet): boolean => (set[0] as Range).rangeStart.v4;

/** The reference's String(): every range's "start-end", comma-joined. */
export const formatRangeSet = (set: RangeSet): string => set.map(formatRange).join(',');
