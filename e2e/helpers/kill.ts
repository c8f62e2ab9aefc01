// Running a plugin in a node netns and SIGKILLing it part-way, as a runtime's timeout or an OOM
// kill would: after a delay, or when a trigger set off by the plugin's own progress fires. The
// run waits for every process the plugin started (its own process group) before it returns.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Outcome {
  readonly ms: number;
  /** how the run ended: killed, or finished before the kill came */
  readonly ended: string;
}

/** A kill set off by the plugin's progress: `fired` resolves when it shows; stop() ends the watch. */
export interface Trigger {
  readonly fired: Promise<void>;
  stop(): void;
}

/** One plugin run: the executable, run in the node netns with `env` and `conf` on stdin. */
export interface KillableRun {
  readonly node: string;
  readonly exe: string;
  readonly env: Record<string, string>;
  readonly conf: object;
}

/** Runs the plugin and SIGKILLs it after `kill` ms or when the trigger fires (if still running). */
export async function runKilledAfter({ node, exe, env, conf }: KillableRun, kill: number | Trigger | undefined): Promise<Outcome> {
  const t0 = process.hrtime.bigint();
  // its own process group, so we can tell when helpers it started (nft, iptables, IPAM) are done
  const child = spawn('ip', ['netns', 'exec', node, exe], { env, stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  child.stdin.on('error', () => {}); // killed before reading its config
  child.stdin.end(JSON.stringify(conf));
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? `exit ${code}`)));
  let timer: NodeJS.Timeout | undefined;
  if (typeof kill === 'number') timer = setTimeout(() => child.kill('SIGKILL'), kill);
  else void kill?.fired.then(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  const ended = await exited;
  clearTimeout(timer);
  if (typeof kill === 'object') kill.stop();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const pgid = child.pid as number;

  for (let i = 0; i < 200 && groupAlive(pgid); i++) await sleep(25);
  return { ms, ended };
}

// Whether a process of the group still runs. Zombies do not count: an orphan's parent is
// gone, and how soon init reaps it is not ours to wait for.
function groupAlive(pgid: number): boolean {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') return true;
  }
  return false;
}

/** Fires when `found()` answers true, asked every millisecond. */
export function whenSeen(found: () => boolean): Trigger {
  let timer: NodeJS.Timeout | undefined;
  const fired = new Promise<void>((resolve) => {
    timer = setInterval(() => found() && resolve(), 1);
  });
  return { fired, stop: () => clearInterval(timer) };
}
