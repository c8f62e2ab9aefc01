// One plugin run with a deadline, for tests where a hang is the failure being looked for.
// The plugin is killed (SIGKILL, through our own child handle) when the deadline passes.
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { inNetns } from '../../test-support/sh.ts';

export interface TimedRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed, when it is one JSON value */
  readonly json: any;
  readonly timedOut: boolean;
  readonly ms: number;
}

export interface TimedOptions {
  /** the netns that plays the node; the plugin runs inside it */
  readonly nodeNetns?: string;
  readonly timeoutMs?: number;
}

/** `target`: the plugin directory and the plugin's name. */
export async function timedExec(
  target: readonly [dir: string, plugin: string],
  env: Record<string, string>,
  stdin: string | Buffer,
  o: TimedOptions = {},
): Promise<TimedRun> {
  const file = join(...target);
  const wrap = o.nodeNetns === undefined ? [] : inNetns(o.nodeNetns);
  const limit = o.timeoutMs ?? 20_000;
  const t0 = performance.now();
  const r = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: Buffer; stderr: Buffer }>((resolve, reject) => {
    const child = spawn(wrap[0] ?? file, wrap.length > 0 ? [...wrap.slice(1), file] : [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), limit);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(stdin);
  });
  const ms = performance.now() - t0;
  const stdout = r.stdout.toString();
  let json: unknown;
  try {
    json = stdout.trim() === '' ? undefined : JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code: r.code, signal: r.signal, stdout, stderr: r.stderr.toString(), json, timedOut: r.signal !== null && ms >= limit, ms };
}
