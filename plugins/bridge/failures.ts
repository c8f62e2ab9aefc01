// Reporting several failures of a best-effort verb (DEL, GC) at once.
import { CniError, asCniError } from '../../lib/cni-spec/index.ts';

/** One failure passes through as it is; several become one error listing them all. */
export function combineFailures(failures: readonly unknown[]): CniError {
  const errs = failures.map(asCniError);
  const first = errs[0];
  if (!first) throw new TypeError('combineFailures needs at least one failure');
  if (errs.length === 1) return first;
  return new CniError(first.code, errs.map((e) => e.message).join('; '), undefined, { cause: new AggregateError(failures) });
}
