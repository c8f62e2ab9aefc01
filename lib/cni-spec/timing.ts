// CNI_TIMING=1: each plugin run writes where its time went to stderr, one line, so a benchmark
// (bench/) can tell start-up from the work and the work's kinds apart:
//
//   cni-timing plugin=bridge verb=ADD startup=41.20 config=1.10 netlink=6.30 sysctl=0.40 netfilter=17.90 ipam=1.20 wait=0.00 other=2.10 total=70.20
//
// All in ms. startup: process start (performance.timeOrigin) → the dispatcher's entry; total:
// process start → the result written; other: total − startup − the phases. A phase is the union
// of the intervals marked with it, so parallel requests of one phase are not counted twice.
// Phases are marked around the work itself at its lowest level (one netlink request, one tool
// run, one sleep), never around each other, so they do not overlap.
//
// Off (the default) costs one branch per marked call and writes nothing; stdout is never used.

export const PHASES = ['config', 'netlink', 'sysctl', 'netfilter', 'ipam', 'wait'] as const;
export type Phase = (typeof PHASES)[number];

/** Accumulates per-phase wall time as the union of possibly overlapping intervals. */
export class PhaseClock {
  readonly #now: () => number;
  readonly #open = new Map<Phase, { depth: number; since: number }>();
  readonly #spent = new Map<Phase, number>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Starts an interval of `phase`; the returned function ends it (call it exactly once). */
  enter(phase: Phase): () => void {
    const open = this.#open.get(phase);
    if (open) open.depth++;
    else this.#open.set(phase, { depth: 1, since: this.#now() });
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const o = this.#open.get(phase);
      if (!o) return;
      if (--o.depth > 0) return;
      this.#open.delete(phase);
      this.#spent.set(phase, (this.#spent.get(phase) ?? 0) + this.#now() - o.since);
    };
  }

  /** Time spent in `phase` so far, including an interval still open. */
  spent(phase: Phase): number {
    const o = this.#open.get(phase);
    return (this.#spent.get(phase) ?? 0) + (o ? this.#now() - o.since : 0);
  }
}

export interface TimingLine {
  readonly plugin: string;
  readonly verb: string;
  readonly startup: number;
  readonly phases: Readonly<Record<Phase, number>>;
  readonly total: number;
}

const ms = (x: number): string => Math.max(0, x).toFixed(2);

/** The stderr line (with its newline). Field order is fixed; values are ms with two decimals. */
export function formatTiming(t: TimingLine): string {
  const phases = PHASES.map((p) => `${p}=${ms(t.phases[p])}`).join(' ');
  const other = t.total - t.startup - PHASES.reduce((sum, p) => sum + t.phases[p], 0);
  return `cni-timing plugin=${t.plugin} verb=${t.verb} startup=${ms(t.startup)} ${phases} other=${ms(other)} total=${ms(t.total)}\n`;
}

/** Parses a line written by formatTiming back into numbers (for the benchmark); undefined if it is not one. */
export function parseTiming(line: string): { plugin: string; verb: string; ms: Record<string, number> } | undefined {
  const m = /^cni-timing plugin=(\S+) verb=(\S+)((?: [a-z]+=\d+(?:\.\d+)?)+)\s*$/.exec(line);
  if (!m) return undefined;
  const out: Record<string, number> = {};
  for (const kv of (m[3] ?? '').trim().split(' ')) {
    const [k, v] = kv.split('=');
    if (k !== undefined && v !== undefined) out[k] = Number(v);
  }
  return { plugin: m[1] ?? '', verb: m[2] ?? '', ms: out };
}

// The one clock of this process; undefined while timing is off.
let clock: PhaseClock | undefined;
let startedAt = 0;

/** Whether CNI_TIMING asks for timing (any value but empty or "0"). */
export function timingRequested(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env['CNI_TIMING'];
  return v !== undefined && v !== '' && v !== '0';
}

/** Turns timing on for this process (the dispatcher does, at its entry). Returns the start-up time. */
export function startTiming(now: () => number = () => performance.now()): void {
  clock = new PhaseClock(now);
  startedAt = now();
}

/** Turns timing off again and returns the line, or undefined when it was off. */
export function finishTiming(plugin: string, verb: string, now: () => number = () => performance.now()): string | undefined {
  const c = clock;
  if (c === undefined) return undefined;
  clock = undefined;
  const phases = Object.fromEntries(PHASES.map((p) => [p, c.spent(p)])) as Record<Phase, number>;
  return formatTiming({ plugin, verb, startup: startedAt, phases, total: now() });
}

/**
 * Runs fn as `phase`: synchronous or returning a promise (then the phase lasts until it
 * settles). With timing off this is just fn().
 */
export function timed<T>(phase: Phase, fn: () => T): T {
  if (clock === undefined) return fn();
  const end = clock.enter(phase);
  let result: T;
  try {
    result = fn();
  } catch (err) {
    end();
    throw err;
  }
  if (result instanceof Promise) {
    result.then(end, end);
  } else {
    end();
  }
  return result;
}
