// Reporting several failures of a best-effort verb (DEL, GC) at once.
import { CniError, asCniError } from './errors.ts';

/** One failure passes through as it is; several become one error listing them all. */
export function combineFailures(failures: readonly unknown[]): CniError {
  const errs = failures.map(asCniError);
  const first = errs[0];
  if (!first) throw new TypeError('combineFailures needs at least one failure');
  if (errs.length === 1) return first;
  return new CniError(first.code, errs.map((e) => e.message).join('; '), undefined, { cause: new AggregateError(failures) });
}

/**
 * Runs every step of a best-effort verb even when an earlier one failed, then reports all
 * failures together: a DEL that stops at its first error leaks whatever came after it.
 */
export class Failures {
  readonly #errors: unknown[] = [];

  async attempt(step: () => Promise<void> | void): Promise<void> {
    try {
      await step();
    } catch (err) {
      this.#errors.push(err);
    }
  }

  throwIfAny(): void {
    if (this.#errors.length > 0) throw combineFailures(this.#errors);
  }
}
