// What the dhcp target's valid config needs in a batch: a DHCP server answering on the pod's
// eth0 and a running daemon of the implementation under test.
//
//   pod netns: eth0 ──veth── node netns: dhbi0 (192.168.99.1/24), dnsmasq on it; the daemon
//
// dnsmasq and the daemon are our own children (`ip netns exec` execs them, so each child is the
// program itself), stopped through those handles by the teardown this returns. The daemon runs
// in the node netns, where the runner also runs the plugin, and enters the pod's netns itself.
// dnsmasq's lease file and our daemon's -statedir are under the batch's dataDir, which the
// runner's snapshots read: a lease left behind by a case shows there. Go's daemon (which has no
// -statedir and keeps its leases in memory) is started without it.
import { dnsmasqArgs } from '../dnsmasq.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inNetns, run, tryRun } from '../sh.ts';
import type { SetupWorld } from './targets.ts';

export const DHCP_LAN = { server: 'dhbi0', serverAddr: '192.168.99.1/24', start: '192.168.99.100', end: '192.168.99.150' } as const;

/** Where the batch's daemon listens: outside dataDir (a snapshot reads every file there). */
export const dhcpSocketOf = (dataDir: string): string => join(`${dataDir}-dhcp`, 'dhcp.sock');

/** A child started in `ns`, its stderr kept for failure messages. */
interface Child {
  readonly log: () => string;
  readonly running: () => boolean;
  readonly stop: () => Promise<void>;
}

function startIn(ns: string, argv: readonly string[]): Child {
  const wrap = inNetns(ns);
  const child: ChildProcess = spawn(wrap[0] as string, [...wrap.slice(1), ...argv], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    log: () => log,
    running,
    stop: async () => {
      if (running()) child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => false), sleep(5_000).then(() => true)]);
      if (killed && running()) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

async function waitFor(what: string, c: Child, ready: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !ready(); i++) {
    if (!c.running()) throw new Error(`${what} exited: ${c.log()}`);
    await sleep(25);
  }
  if (!ready()) throw new Error(`${what} not ready in 10 s: ${c.log()}`);
}

/** True when the daemon of `pluginDir` knows our -statedir flag (Go's does not). */
async function hasStateDir(pluginDir: string): Promise<boolean> {
  const r = await tryRun(join(pluginDir, 'dhcp'), ['daemon', '-h']);
  return /-statedir/.test(r.stdout + r.stderr);
}

/** Builds the lan, starts dnsmasq and the daemon; returns what stops them and removes the socket's directory. */
export async function prepareDhcp(w: SetupWorld): Promise<() => Promise<void>> {
  const n = ['-n', w.node];
  await run('ip', [...n, 'link', 'add', DHCP_LAN.server, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', w.pod]);
  await run('ip', [...n, 'addr', 'add', DHCP_LAN.serverAddr, 'dev', DHCP_LAN.server]);
  await run('ip', [...n, 'link', 'set', DHCP_LAN.server, 'up']);
  // up already: the daemon would bring it up, and a case must not be seen as changing that
  await run('ip', ['-n', w.pod, 'link', 'set', 'eth0', 'up']);

  const children: Child[] = [];
  const sockDir = `${w.dataDir}-dhcp`;
  const teardown = async () => {
    for (const c of children.reverse()) await c.stop();
    rmSync(sockDir, { recursive: true, force: true });
  };
  try {
    const dnsmasq = startIn(w.node, [
      'dnsmasq',
      ...dnsmasqArgs({ iface: DHCP_LAN.server, leaseFile: join(w.dataDir, 'dnsmasq.leases'), start: DHCP_LAN.start, end: DHCP_LAN.end }),
    ]);
    children.push(dnsmasq);
    // it logs the range once its DHCP socket is bound
    await waitFor('dnsmasq', dnsmasq, () => /DHCP, IP range/.test(dnsmasq.log()));

    mkdirSync(sockDir, { mode: 0o700 });
    const socket = dhcpSocketOf(w.dataDir);
    const stateDir = (await hasStateDir(w.pluginDir)) ? ['-statedir', join(w.dataDir, 'dhcp-state')] : [];
    const daemon = startIn(w.node, [join(w.pluginDir, 'dhcp'), 'daemon', '-socketpath', socket, ...stateDir]);
    children.push(daemon);
    await waitFor('the dhcp daemon', daemon, () => existsSync(socket));
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}
