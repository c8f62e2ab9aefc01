// Waiting for a link's operational state to become UP.
import { setTimeout as sleep } from 'node:timers/promises';
import { timed } from '../cni-spec/timing.ts';
import { getLinkByIndex } from './link.ts';
import type { OperState } from './link-parse.ts';
import type { Netns } from './netns.ts';

/** The reference bridge's polling schedule for the host-side port (ms before each look). */
export const OPER_UP_BACKOFF_MS: readonly number[] = [0, 50, 500, 1000, 1000];

export class OperStateError extends Error {
  override readonly name = 'OperStateError';
  constructor(readonly state: OperState | 'ABSENT') {
    // Go prints netlink.LinkOperState in lower case: "bridge port in error state: down".
    super(`bridge port in error state: ${state.toLowerCase()}`);
  }
}

/** Resolves once the link is oper-UP; throws OperStateError with the last state seen. */
export async function waitOperUp(ns: Netns, index: number, backoffMs: readonly number[] = OPER_UP_BACKOFF_MS): Promise<void> {
  let state: OperState | 'ABSENT' = 'ABSENT';
  for (const ms of backoffMs) {
    if (ms > 0) await timed('wait', () => sleep(ms));
    const link = await getLinkByIndex(ns, index);
    state = link?.operState ?? 'ABSENT';
    if (state === 'UP') return;
  }
  throw new OperStateError(state);
}
