// The dhcp daemon under test (`<form bin>/dhcp daemon`), run by each test as its own child in the
// node netns, as a node's service manager would run it, and stopped only through that handle:
// SIGTERM as systemd stops it, SIGKILL as an OOM kill or a crash would end it. A restart is a
// second start with the same directory: the same socket path and state dir.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import type { TestNetns } from './netns.ts';
import { BASE_ENV, DIST_BIN, tempDir } from './plugins.ts';

export const DHCP_BIN = join(DIST_BIN, 'dhcp');

export interface DhcpDaemonDir {
  readonly dir: string;
  readonly socketPath: string;
  readonly stateDir: string;
}

/** A directory for one daemon's socket and state, kept across its restarts. */
export function daemonDir(t: Test): DhcpDaemonDir {
  const dir = tempDir(t, 'cnits-dhcpd-');
  return { dir, socketPath: join(dir, 'dhcp.sock'), stateDir: join(dir, 'state') };
}

export interface DhcpDaemon extends DhcpDaemonDir {
  readonly pid: number;
  /** what it logged so far (stderr) */
  log(): string;
  /** sends `signal` and waits for the exit: how it ended ('exit N' or the signal) */
  stop(signal?: 'SIGTERM' | 'SIGINT' | 'SIGKILL'): Promise<string>;
}

/**
 * Starts `dhcp daemon -socketpath … -statedir …` (plus `flags`) in `node`; ready when its socket
 * accepts a connection. A daemon still running at the end of the test is stopped with SIGTERM.
 */
export async function startDhcpDaemon(t: Test, node: TestNetns, d: DhcpDaemonDir = daemonDir(t), flags: readonly string[] = []): Promise<DhcpDaemon> {
  const args = ['netns', 'exec', node.name, DHCP_BIN, 'daemon', '-socketpath', d.socketPath, '-statedir', d.stateDir, ...flags];
  const child = spawn('ip', args, { env: { ...BASE_ENV }, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (log += s));
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? `exit ${code}`)));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async (signal: 'SIGTERM' | 'SIGINT' | 'SIGKILL' = 'SIGTERM') => {
    if (running()) child.kill(signal);
    return exited;
  };
  t.teardown(() => stop());
  // a socket file a killed daemon left behind refuses connections: wait for one that accepts
  for (let i = 0; i < 400 && !(await accepts(d.socketPath)); i++) {
    if (!running()) throw new Error(`dhcp daemon exited (${await exited}) before listening: ${log}`);
    await sleep(25);
  }
  if (!(await accepts(d.socketPath))) throw new Error(`dhcp daemon did not listen on ${d.socketPath} in 10 s: ${log}`);
  return { ...d, pid: child.pid as number, log: () => log, stop };
}

/** True when a unix socket at `path` accepts a connection (the connection is closed at once). */
export function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
