// Timing shared by the benchmarks.
import { spawnSync } from 'node:child_process';

/**
 * Runs a program to completion with `input` on stdin and returns its wall time in ms, from
 * spawn to exit; throws `<what> failed: <stdout> <stderr>` unless it exited 0.
 */
export interface TimedRun {
  readonly what: string;
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly input: string;
}

export function timeRun({ what, cmd, args, env, input }: TimedRun): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, input, stdio: ['pipe', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${what} failed: ${r.stdout.toString()} ${r.stderr.toString()}`);
  return ms;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
