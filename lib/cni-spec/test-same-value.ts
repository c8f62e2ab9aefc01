// For tests comparing a quick reading with zod's: equal values with their keys in the same order
// at every level (a result is printed in the order its keys were set).
import { isDeepStrictEqual } from 'node:util';

function sameKeys(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return true;
  const ka = Object.keys(a);
  return isDeepStrictEqual(ka, Object.keys(b)) && ka.every((k) => sameKeys((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

export function sameValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(a, b) && sameKeys(a, b);
}
