// Waiting for every step, then failing with all their errors: a teardown must not stop at the
// first failure, and the lock must not be released while a step is still running.
import { errorText } from '../../../cni-spec/errors.ts';

/** An error that stands for several; its message lists theirs, one per line (the reference's join). */
export class NetfilterErrors extends Error {
  readonly errors: readonly unknown[];
  constructor(errors: readonly unknown[]) {
    super(errors.map(errorText).join('\n'), { cause: errors[0] });
    this.name = 'NetfilterErrors';
    this.errors = errors;
  }
}

export function throwErrors(errors: readonly unknown[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new NetfilterErrors(errors);
}

export async function settleAll(steps: readonly Promise<unknown>[]): Promise<void> {
  const results = await Promise.allSettled(steps);
  throwErrors(results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : [])));
}
