// How the daemon retries a first lease (the reference's backoffRetry,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/ipam/dhcp/lease.go): four quick
// tries 2 s ± 1 s apart, then from 4 s ± 1 s doubling up to -resendmax, until -resendtimeout.
import type { DaemonFlags } from './flags.ts';

const FAST_DELAY_MS = 2000;
const FAST_TRIES = 4;
const FIRST_DELAY_MS = 4000;
const JITTER_MS = 1000;

export class NoMoreTriesError extends Error {
  constructor(last: unknown) {
    super(`${last instanceof Error ? last.message : String(last)}: no more tries`, { cause: last });
    this.name = 'NoMoreTriesError';
  }
}

/** The delays between tries, in order (pure, given the random source). */
export function* backoffDelays(resendMaxMs: number, random: () => number = Math.random): Generator<number> {
  let base = FIRST_DELAY_MS;
  for (let fast = FAST_TRIES; ;) {
    const jitter = JITTER_MS * (2 * random() - 1);
    if (fast > 0) {
      fast--;
      yield FAST_DELAY_MS + jitter;
    } else {
      yield base + jitter;
      if (base < resendMaxMs) base *= 2;
    }
  }
}

/** Runs `attempt` (given how long it may take) until it succeeds or -resendtimeout has passed. */
export async function withBackoff<T>(
  attempt: (timeoutMs: number) => Promise<T>,
  flags: Pick<DaemonFlags, 'timeout' | 'resendmax' | 'resendtimeout'>,
): Promise<T> {
  const end = Date.now() + flags.resendtimeout;
  const delays = backoffDelays(flags.resendmax);
  for (;;) {
    let last: unknown;
    try {
      return await attempt(Math.max(1, Math.min(flags.timeout, end - Date.now())));
    } catch (err) {
      last = err;
    }
    const delay = delays.next().value as number;
    if (Date.now() + delay >= end) throw new NoMoreTriesError(last);
    await new Promise((r) => setTimeout(r, delay));
  }
}
