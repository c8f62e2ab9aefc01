// A real DHCP server for the dhcp tests: Debian's dnsmasq (package dnsmasq-base, no service) in
// the lan netns of e2e/helpers/lan.ts, serving the node's macvlan master through the veth:
//
//   pod netns (macvlan eth0, address by DHCP) ─┐
//   pod netns ─────────────────────────────────┴─ [ node netns: master eth0 ] ──veth── lan netns: dnsmasq on lan0
//
// dnsmasq is started as our own child (`ip netns exec` execs it, so the child is dnsmasq itself)
// and stopped only through that handle. `--no-daemon` keeps it in the foreground, writes no pid
// file and keeps the user; `--conf-file=/dev/null` keeps a machine's /etc/dnsmasq.conf out;
// `--port=0` turns DNS off. Tests read the server's own view, its lease file
// (`<expiry> <mac> <ip> <hostname|*> <client-id|*>` per line), never the daemon's.
import { dnsmasqArgs as baseArgs } from '../../test-support/dnsmasq.ts';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { LAN, makeLan, type LanWorld } from './lan.ts';
import type { TestNetns } from './netns.ts';
import { tempDir } from './plugins.ts';

export const DHCP_RANGE = { start: '10.61.0.10', end: '10.61.0.99' } as const;

export interface DhcpServerOptions {
  /** lease time as dnsmasq reads it ('2m' is its minimum; default '2m') */
  readonly leaseTime?: string;
  /** renewal time T1 (option 58) and rebinding time T2 (option 59), seconds */
  readonly t1?: number;
  readonly t2?: number;
  /** routers (option 3), default the lan machine; [] sends none */
  readonly routers?: readonly string[];
  /** classless static routes (option 121): [destination CIDR, gateway] */
  readonly classlessRoutes?: readonly (readonly [string, string])[];
}

/** One line of the server's lease file. */
export interface ServerLease {
  /** seconds since the epoch */
  readonly expiry: number;
  readonly mac: string;
  readonly ip: string;
  readonly hostname: string | undefined;
  /** hex bytes with colons, as dnsmasq writes them */
  readonly clientId: string | undefined;
}

export interface DhcpServer {
  readonly leaseFile: string;
  /** the server's lease table, as its lease file holds it now */
  leases(): ServerLease[];
  /** what dnsmasq logged (stderr), for failure messages */
  log(): string;
  stop(): Promise<void>;
}

/** dnsmasq's command line serving `iface` from DHCP_RANGE. */
export function dnsmasqArgs(iface: string, leaseFile: string, o: DhcpServerOptions = {}): string[] {
  const routers = o.routers ?? [LAN.hostAddr];
  return [
    ...baseArgs({ iface, leaseFile, start: DHCP_RANGE.start, end: DHCP_RANGE.end, leaseTime: o.leaseTime ?? '2m' }),
    '--log-dhcp',
    // an empty option 3 makes dnsmasq send no router (else it sends its own address)
    `--dhcp-option=option:router${routers.map((r) => `,${r}`).join('')}`,
    ...(o.t1 === undefined ? [] : [`--dhcp-option=option:T1,${o.t1}`]),
    ...(o.t2 === undefined ? [] : [`--dhcp-option=option:T2,${o.t2}`]),
    ...(o.classlessRoutes ? [`--dhcp-option=option:classless-static-route,${o.classlessRoutes.flat().join(',')}`] : []),
  ];
}

/** The lease file's lines; DHCPv6 `duid` lines are not leases. */
export function parseLeases(text: string): ServerLease[] {
  const leases: ServerLease[] = [];
  for (const line of text.split('\n')) {
    const [expiry, mac, ip, hostname, clientId] = line.trim().split(/\s+/);
    if (expiry === undefined || expiry === 'duid' || ip === undefined || mac === undefined) continue;
    const star = (s: string | undefined) => (s === undefined || s === '*' ? undefined : s);
    leases.push({ expiry: Number(expiry), mac, ip, hostname: star(hostname), clientId: star(clientId) });
  }
  return leases;
}

/**
 * The client identifier the dhcp plugin sends (option 61), as dnsmasq's lease file shows it:
 * type 0, then `containerID/netName/ifName` (the reference's generateClientID and withClientID,
 * https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/ipam/dhcp/daemon.go).
 */
export function clientIdOf(containerId: string, netName: string, ifName: string): string {
  const bytes = [0, ...Buffer.from(`${containerId}/${netName}/${ifName}`).subarray(0, 254)];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

/** Starts dnsmasq on `iface` in `ns`; stopped by the test's teardown if the test has not. */
export async function startDhcpServer(t: Test, ns: TestNetns, iface: string, o: DhcpServerOptions = {}): Promise<DhcpServer> {
  const leaseFile = join(tempDir(t, 'cnits-dhcpd-'), 'dnsmasq.leases');
  const child = spawn('ip', ['netns', 'exec', ns.name, 'dnsmasq', ...dnsmasqArgs(iface, leaseFile, o)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (running()) child.kill('SIGTERM');
    await exited;
  };
  t.teardown(stop);
  // ready once its DHCP socket is bound: it logs the range after binding
  for (let i = 0; i < 200 && !/DHCP, IP range/.test(log); i++) {
    if (!running()) throw new Error(`dnsmasq exited: ${log}`);
    await sleep(25);
  }
  if (!/DHCP, IP range/.test(log)) throw new Error(`dnsmasq did not start in 5 s: ${log}`);
  return {
    leaseFile,
    leases: () => (existsSync(leaseFile) ? parseLeases(readFileSync(leaseFile, 'utf8')) : []),
    log: () => log,
    stop,
  };
}

export interface DhcpWorld extends LanWorld {
  readonly server: DhcpServer;
}

/** makeLan()'s node and lan, with dnsmasq serving the lan side of the master's veth. */
export async function makeDhcpLan(t: Test, o: DhcpServerOptions = {}): Promise<DhcpWorld> {
  const w = await makeLan(t);
  const server = await startDhcpServer(t, w.lan, LAN.lanIf, o);
  return { ...w, server };
}

/** Polls `probe` every 50 ms until it answers something other than undefined, or `ms` pass. */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, ms: number): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined || Date.now() > end) return v;
    await sleep(50);
  }
}
