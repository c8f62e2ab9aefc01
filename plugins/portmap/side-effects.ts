// What portmap does besides the rules: the UDP conntrack flush and route_localnet.
import { deleteConntrackByDstPort, Netns, routeInterface, writeSysctl, type PortmapTarget } from '../../lib/linux/index.ts';

const IPPROTO_UDP = 17;

/**
 * Stale UDP entries toward a host port keep sending its traffic where it went before the rules
 * changed (plugins#123), so they go after ADD and, unlike the reference, after DEL too
 * (plugins#1190). A failure is only reported: the rules are what matter.
 */
export async function flushStaleUdp(t: PortmapTarget, families: readonly (4 | 6)[], log: (line: string) => void): Promise<void> {
  const ports = new Set(t.mappings.filter((m) => m.protocol === 'udp').map((m) => m.hostPort));
  if (ports.size === 0) return;
  try {
    await deleteConntrackByDstPort(families, IPPROTO_UDP, ports);
  } catch (err) {
    log(`portmap: failed to delete stale UDP conntrack entries: ${(err as Error).message}`);
  }
}

/**
 * 127.0.0.1 → hostPort is DNATed to the container, so the packet leaves with a loopback source:
 * the host interface toward the container must accept that (route_localnet=1; never reverted,
 * as in the reference). IPv6 has no such switch: [::1]:hostPort is not forwarded.
 */
export async function enableRouteLocalnet(containerIp: string): Promise<void> {
  const host = Netns.host();
  try {
    const ifname = await routeInterface(host, containerIp);
    if (ifname === undefined) return;
    try {
      writeSysctl(host, `net/ipv4/conf/${ifname}/route_localnet`, '1');
    } catch (err) {
      throw new Error(`unable to enable route_localnet: ${(err as Error).message}`, { cause: err });
    }
  } finally {
    host.close();
  }
}
