// A pod with two interfaces for sbr: eth0 to netns "a" (10.1.0.2/24, the default route via
// 10.1.0.1) and net1 to netns "b" (10.2.0.2/24, gateway 10.2.0.1), made by hand as the two
// attachments before sbr would leave them. Netns "b" also holds 10.3.0.9, a peer beyond the
// second network: the pod can answer it only through net1's gateway, which the main table
// does not know (its default route leaves by eth0, and "a" has no way to 10.3.0.9).
import type { Test } from 'tap';
import { makeNetns, type TestNetns } from './netns.ts';
import { ipJson, nsExec, run } from '../../test-support/sh.ts';

export const NET1 = { address: '10.2.0.2/24', ip: '10.2.0.2', gateway: '10.2.0.1', subnet: '10.2.0.0/24' } as const;
export const FAR_PEER = '10.3.0.9';

export interface SbrWorld {
  readonly pod: TestNetns;
  readonly a: TestNetns;
  readonly b: TestNetns;
}

async function ip(ns: string, ...args: string[]): Promise<void> {
  await run('ip', ['-n', ns, ...args]);
}

export async function sbrWorld(t: Test): Promise<SbrWorld> {
  const [pod, a, b] = [await makeNetns(t, 'sbr-pod'), await makeNetns(t, 'sbr-a'), await makeNetns(t, 'sbr-b')];
  await ip(pod.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'peer-a', 'netns', a.name);
  await ip(pod.name, 'link', 'add', 'net1', 'type', 'veth', 'peer', 'name', 'peer-b', 'netns', b.name);
  for (const [ns, dev, cidr] of [
    [pod.name, 'eth0', '10.1.0.2/24'],
    [pod.name, 'net1', NET1.address],
    [a.name, 'peer-a', '10.1.0.1/24'],
    [b.name, 'peer-b', `${NET1.gateway}/24`],
    [b.name, 'lo', `${FAR_PEER}/32`],
  ] as const) {
    await ip(ns, 'addr', 'add', cidr, 'dev', dev);
    await ip(ns, 'link', 'set', dev, 'up');
  }
  await ip(pod.name, 'link', 'set', 'lo', 'up');
  await ip(pod.name, 'route', 'add', 'default', 'via', '10.1.0.1', 'dev', 'eth0');
  // Reverse-path filtering would drop the far peer's packets on net1 before any reply is routed.
  for (const key of ['all', 'default', 'eth0', 'net1']) await run('ip', ['netns', 'exec', pod.name, 'sysctl', '-qw', `net.ipv4.conf.${key}.rp_filter=0`]);
  return { pod, a, b };
}

/** The prevResult the second attachment (net1) hands sbr, in the shape of spec version `v`. */
export function net1Result(v: string, pod: TestNetns): object {
  if (v === '0.1.0' || v === '0.2.0') return { cniVersion: v, ip4: { ip: NET1.address, gateway: NET1.gateway } };
  return {
    cniVersion: v,
    interfaces: [{ name: 'net1', sandbox: pod.path }],
    ips: [{ ...(v.startsWith('0.') && { version: '4' }), address: NET1.address, gateway: NET1.gateway, interface: 0 }],
  };
}

export function sbrConf(v: string, pod: TestNetns, extra: object = {}): object {
  return { cniVersion: v, name: 'sbrnet', type: 'sbr', ...extra, prevResult: net1Result(v, pod) };
}

export interface RuleLine {
  src?: string;
  table?: string;
  priority: number;
}

/** The pod's IPv4 and IPv6 rules beyond the three every netns starts with. */
export async function extraRules(ns: string): Promise<RuleLine[]> {
  const all = [...(await ipJson<RuleLine[]>(ns, ['-4', 'rule', 'show'])), ...(await ipJson<RuleLine[]>(ns, ['-6', 'rule', 'show']))];
  return all.filter((r) => !(r.src === 'all' && ['local', 'main', 'default'].includes(r.table ?? '')));
}

/** Routes of one table ("main", "100"), both families, as `ip -j route` prints them. */
export async function tableRoutes(ns: string, table: string): Promise<{ dst: string; gateway?: string; dev?: string; prefsrc?: string }[]> {
  return [...(await ipJson<any[]>(ns, ['-4', 'route', 'show', 'table', table])), ...(await ipJson<any[]>(ns, ['-6', 'route', 'show', 'table', table]))];
}

/** Every route outside the main and local tables, both families. */
export async function routesOutsideMain(ns: string): Promise<unknown[]> {
  const all = [...(await ipJson<any[]>(ns, ['-4', 'route', 'show', 'table', 'all'])), ...(await ipJson<any[]>(ns, ['-6', 'route', 'show', 'table', 'all']))];
  return all.filter((r) => r.table !== undefined && r.table !== 'main' && r.table !== 'local');
}

export async function txPackets(ns: string, dev: string): Promise<number> {
  const [l] = await ipJson<{ stats64: { tx: { packets: number } } }[]>(ns, ['-s', 'link', 'show', dev]);
  return l?.stats64.tx.packets ?? NaN;
}

/** The far peer pings the pod's net1 address: true when the replies came back. */
export async function farPeerReaches(w: SbrWorld, count = 3): Promise<boolean> {
  const r = await nsExec(w.b.name, 'ping', ['-c', String(count), '-i', '0.2', '-W', '1', '-I', FAR_PEER, NET1.ip]);
  return r.code === 0;
}
