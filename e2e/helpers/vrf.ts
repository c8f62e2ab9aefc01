// The vrf plugin's e2e helpers: what a previous plugin leaves in a pod (a veth to a peer netns,
// with an address and a route through it) and its prevResult, and the plugin run on it.
import type { Test } from 'tap';
import { makeNetns, type TestNetns } from './netns.ts';
import { execPlugin, type PluginRun } from './plugins.ts';
import { ipJson, nsExec, run } from '../../test-support/sh.ts';

export interface Wire {
  readonly ifname: string;
  readonly peer: TestNetns;
}

/**
 * `ifname` in the pod, its peer end ("p0") in a new netns: the pod side 10.80.0.2/24 and
 * fd80::2/64, the peer side .1; in the pod a route to 10.90.0.0/24 via the peer (metric `metric`,
 * so that two wires can hold the same route in the main table); `far` is put on the peer's lo.
 */
export async function wire(t: Test, pod: TestNetns, ifname: string, o: { metric: number; far: string }): Promise<Wire> {
  const peer = await makeNetns(t, 'cnits-vrfpeer');
  await run('ip', ['-n', pod.name, 'link', 'add', ifname, 'type', 'veth', 'peer', 'name', 'p0', 'netns', peer.name]);
  await run('ip', ['-n', peer.name, 'addr', 'add', '10.80.0.1/24', 'dev', 'p0']);
  await run('ip', ['-n', peer.name, 'addr', 'add', 'fd80::1/64', 'dev', 'p0', 'nodad']);
  await run('ip', ['-n', peer.name, 'addr', 'add', `${o.far}/32`, 'dev', 'lo']);
  await run('ip', ['-n', peer.name, 'link', 'set', 'p0', 'up']);
  await run('ip', ['-n', peer.name, 'link', 'set', 'lo', 'up']);
  await run('ip', ['-n', pod.name, 'addr', 'add', '10.80.0.2/24', 'dev', ifname]);
  await run('ip', ['-n', pod.name, 'addr', 'add', 'fd80::2/64', 'dev', ifname, 'nodad']);
  await run('ip', ['-n', pod.name, 'link', 'set', ifname, 'up']);
  await run('ip', ['-n', pod.name, 'route', 'add', '10.90.0.0/24', 'via', '10.80.0.1', 'dev', ifname, 'metric', String(o.metric)]);
  return { ifname, peer };
}

export function prevResult(pod: TestNetns, ifname: string, cniVersion = '1.0.0') {
  return {
    cniVersion,
    interfaces: [{ name: ifname, sandbox: pod.path }],
    ips: [
      { address: '10.80.0.2/24', gateway: '10.80.0.1', interface: 0 },
      { address: 'fd80::2/64', interface: 0 },
    ],
    routes: [{ dst: '10.90.0.0/24', gw: '10.80.0.1' }],
  };
}

export function vrfConf(vrfname: string, o: { table?: number; cniVersion?: string; pod?: TestNetns; ifname?: string } = {}) {
  return {
    cniVersion: o.cniVersion ?? '1.0.0',
    name: 'vrfnet',
    type: 'vrf',
    vrfname,
    ...(o.table !== undefined && { table: o.table }),
    ...(o.pod && o.ifname && { prevResult: prevResult(o.pod, o.ifname, o.cniVersion) }),
  };
}

/** `where.binDir`: the implementation (default: ours) */
export function callVrf(
  command: 'ADD' | 'DEL' | 'CHECK' | 'STATUS' | 'GC' | 'VERSION',
  where: { netns: string; ifname: string; binDir?: string },
  conf: object,
): Promise<PluginRun> {
  return execPlugin('vrf', { command, containerId: 'vrf-e2e', netns: where.netns, ifname: where.ifname }, conf, where.binDir);
}

interface IpDetail {
  ifname: string;
  master?: string;
  linkinfo?: { info_kind?: string; info_data?: { table?: number } };
}

/** name → { kind, master, vrf table } of every link of the pod but lo. */
export async function podLinks(pod: string): Promise<Record<string, { kind?: string; master?: string; table?: number }>> {
  const out: Record<string, { kind?: string; master?: string; table?: number }> = {};
  for (const l of await ipJson<IpDetail[]>(pod, ['-d', 'link', 'show'])) {
    if (l.ifname === 'lo') continue;
    out[l.ifname] = {
      ...(l.linkinfo?.info_kind && { kind: l.linkinfo.info_kind }),
      ...(l.master && { master: l.master }),
      ...(l.linkinfo?.info_data?.table !== undefined && { table: l.linkinfo.info_data.table }),
    };
  }
  return out;
}

/** The routes of one table of the pod, as `dst via dev` lines (IPv6 link-local and multicast left out). */
export async function tableRoutes(pod: string, table: string | number, family: '-4' | '-6' = '-4'): Promise<string[]> {
  const rs = await ipJson<{ dst: string; gateway?: string; dev?: string; type?: string }[]>(pod, [family, 'route', 'show', 'table', String(table)]);
  return rs
    .filter((r) => !r.dst.startsWith('fe80') && !r.dst.startsWith('ff00') && (r.type === undefined || r.type === 'unicast'))
    .map((r) => [r.dst, r.gateway && `via ${r.gateway}`, r.dev && `dev ${r.dev}`].filter(Boolean).join(' '))
    .sort();
}

/** One ping from the pod bound to `dev` (a VRF: the ping routes in its table). */
export async function pingsVia(pod: string, dev: string, addr: string): Promise<boolean> {
  const r = await nsExec(pod, 'ping', [addr.includes(':') ? '-6' : '-4', '-c1', '-W1', '-n', '-q', '-I', dev, addr]);
  return r.code === 0;
}
