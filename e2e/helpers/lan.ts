// A small world for macvlan and ipvlan tests, all of it in throwaway netns:
//
//   pod netns (macvlan/ipvlan on eth0) ─┐
//   pod netns ──────────────────────────┴─ [ node netns: master eth0 ] ──veth── lan netns ("the network")
//
// The node's eth0 (one end of a veth) is the master; its peer in the lan netns carries a host
// address on the node's subnet and plays a machine on the master's network. The node's default
// route goes out of eth0, as on a real node, so the default master is eth0.
import type { Test } from 'tap';
import { attachment, type Attachment } from './conflist.ts';
import { makeNetns, type TestNetns } from './netns.ts';
import { tempDir } from './plugins.ts';
import { ipJson, run } from '../../test-support/sh.ts';

/** Documentation-free private ranges only this world uses. */
export const LAN = {
  master: 'eth0',
  lanIf: 'lan0',
  subnet: '10.61.0.0/24',
  nodeAddr: '10.61.0.1',
  hostAddr: '10.61.0.254',
  /** ipvlan l3 pods live on a subnet of their own, routed through the node */
  l3Subnet: '10.62.0.0/24',
} as const;

export interface LanWorld {
  readonly node: TestNetns;
  /** the machine on the master's network */
  readonly lan: TestNetns;
  readonly dataDir: string;
}

export async function makeLan(t: Test, o: { masterMtu?: number } = {}): Promise<LanWorld> {
  const node = await makeNetns(t, 'node');
  const lan = await makeNetns(t, 'lan');
  const dataDir = tempDir(t, 'cnits-ipam-');
  await run('ip', [
    '-n',
    node.name,
    'link',
    'add',
    LAN.master,
    ...(o.masterMtu ? ['mtu', String(o.masterMtu)] : []),
    'type',
    'veth',
    'peer',
    'name',
    LAN.lanIf,
    'netns',
    lan.name,
  ]);
  await run('ip', ['-n', node.name, 'addr', 'add', `${LAN.nodeAddr}/24`, 'dev', LAN.master]);
  await run('ip', ['-n', lan.name, 'addr', 'add', `${LAN.hostAddr}/24`, 'dev', LAN.lanIf]);
  for (const [ns, dev] of [
    [node.name, LAN.master],
    [node.name, 'lo'],
    [lan.name, LAN.lanIf],
    [lan.name, 'lo'],
  ] as const) {
    await run('ip', ['-n', ns, 'link', 'set', dev, 'up']);
  }
  await run('ip', ['-n', node.name, 'route', 'add', 'default', 'via', LAN.hostAddr]);
  // the lan machine reaches l3 pods through the node, as a router would be configured for them
  await run('ip', ['-n', lan.name, 'route', 'add', LAN.l3Subnet, 'via', LAN.nodeAddr]);
  return { node, lan, dataDir };
}

/** host-local on the master's subnet, from .10 so node and lan addresses are never handed out. */
export function lanIpam(dataDir: string, subnet: string = LAN.subnet): Record<string, unknown> {
  const base = subnet.slice(0, subnet.lastIndexOf('.'));
  return { type: 'host-local', dataDir, ranges: [[{ subnet, rangeStart: `${base}.10`, rangeEnd: `${base}.99` }]] };
}

export function lanAttachment(
  network: string,
  plugin: Record<string, unknown>,
  where: { node: TestNetns; pod: TestNetns; id: string; cniVersion?: string; cniPath?: readonly string[] },
): Attachment {
  const list = { cniVersion: where.cniVersion ?? '1.0.0', name: network, plugins: [plugin] };
  return attachment(
    list,
    { containerId: where.id, netns: where.pod.path, ifname: 'eth0' },
    { nodeNetns: where.node.name, ...(where.cniPath && { cniPath: where.cniPath }) },
  );
}

export interface PodLink {
  ifname: string;
  mtu: number;
  address: string;
  operstate: string;
  flags: string[];
  link_type: string;
  linkinfo?: { info_kind?: string; info_data?: { mode?: string; bcqueuelen?: number } };
  addr_info?: { family: string; local: string; prefixlen: number; scope: string }[];
}

/** The pod's eth0 as `ip -d -j addr` shows it, or undefined. */
export async function podEth0(pod: TestNetns): Promise<PodLink | undefined> {
  const all = await ipJson<PodLink[]>(pod.name, ['-d', 'addr', 'show']);
  return all.find((l) => l.ifname === 'eth0');
}

/** The links of a netns other than lo. */
export async function linksBesideLo(ns: TestNetns): Promise<string[]> {
  const all = await ipJson<{ ifname: string }[]>(ns.name, ['link', 'show']);
  return all.map((l) => l.ifname).filter((n) => n !== 'lo');
}
