// A pod on the DHCP lan (e2e/helpers/dhcp-server.ts) as a runtime attaches it: a conflist of
// macvlan on the node's master with the dhcp IPAM, run through tools/libcni in the node netns;
// and what a user sees of it: eth0's IPv4 addresses, the routes through eth0.
import type { Test } from 'tap';
import type { Attachment } from './conflist.ts';
import { LAN, lanAttachment } from './lan.ts';
import type { TestNetns } from './netns.ts';
import { makePod } from './topology.ts';
import { ipJson } from '../../test-support/sh.ts';

export const DHCP_NET = 'dhcpnet';

/** macvlan on the node's master with the dhcp IPAM asking the daemon at `socketPath`. */
export function macvlanDhcp(socketPath: string, ipam: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'macvlan', master: LAN.master, ipam: { type: 'dhcp', daemonSocketPath: socketPath, ...ipam } };
}

export interface DhcpPod {
  readonly pod: TestNetns;
  readonly id: string;
  readonly att: Attachment;
}

export interface DhcpPodOptions {
  readonly cniVersion?: string;
  /** more keys of the ipam section */
  readonly ipam?: Record<string, unknown>;
}

/** A fresh pod netns and its attachment `id` to DHCP_NET in `node` (not yet added). */
export async function dhcpPod(t: Test, at: { node: TestNetns; socketPath: string }, id: string, o: DhcpPodOptions = {}): Promise<DhcpPod> {
  const { node, socketPath } = at;
  const pod = await makePod(t);
  const att = lanAttachment(DHCP_NET, macvlanDhcp(socketPath, o.ipam), { node, pod, id, ...(o.cniVersion && { cniVersion: o.cniVersion }) });
  return { pod, id, att };
}

/** eth0's IPv4 addresses in the pod, as `a.b.c.d/len`; [] when there is no eth0. */
export async function podInet(pod: TestNetns): Promise<string[]> {
  const links = await ipJson<{ ifname: string; addr_info?: { family: string; local: string; prefixlen: number }[] }[]>(pod.name, ['addr', 'show']);
  const eth0 = links.find((l) => l.ifname === 'eth0');
  return (eth0?.addr_info ?? []).filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`);
}

/** The pod's IPv4 routes through a gateway, as `dst via gw` (`default` for 0.0.0.0/0). */
export async function podGatewayRoutes(pod: TestNetns): Promise<string[]> {
  const routes = await ipJson<{ dst: string; gateway?: string }[]>(pod.name, ['-4', 'route', 'show']);
  return routes
    .filter((r) => r.gateway !== undefined)
    .map((r) => `${r.dst} via ${r.gateway}`)
    .sort();
}

/** The MAC address of the pod's eth0. */
export async function podMac(pod: TestNetns): Promise<string | undefined> {
  const [l] = await ipJson<{ address?: string }[]>(pod.name, ['link', 'show', 'dev', 'eth0']);
  return l?.address;
}
