// CHECK's view of a container interface and of prevResult's addresses and routes on it, as the
// reference's bridge and ptp both check them (cmdCheck; ValidateExpectedInterfaceIPs and
// ValidateExpectedRoute in pkg/ip, https://github.com/containernetworking/plugins/blob/v1.9.0/pkg/ip/utils.go).
import { cidrBytes, networkCidr, sameIp, type Interface, type IPConfig, type Route } from '../cni-spec/index.ts';
import { listAddresses } from './addr.ts';
import { getLinkDetail, type LinkDetail } from './link-detail.ts';
import type { Netns } from './netns.ts';
import { listRoutes, type RouteInfo } from './route.ts';

/** A CHECK that found the container's network not as prevResult says. */
export class CheckError extends Error {
  override readonly name = 'CheckError';
}

/** The container interface exists, is a veth with a peer, and has prevResult's MAC if it names one. */
export async function validateContainerIface(pod: Netns, want: Interface): Promise<LinkDetail> {
  if (want.name === '') throw new CheckError('Container Interface name missing in prevResult');
  const link = await getLinkDetail(pod, want.name);
  if (!link) throw new CheckError(`Container Interface name in prevResult: ${want.name} not found`);
  if (link.kind !== 'veth') throw new CheckError(`Error: Container interface ${want.name} not of type veth`);
  if (link.peerIndex === undefined) throw new CheckError(`Unable to obtain veth peer index for veth ${want.name}`);
  if (want.mac && want.mac !== link.mac) throw new CheckError(`Interface ${want.name} Mac ${want.mac} doesn't match container Mac: ${link.mac}`);
  return link;
}

const RT_TABLE_MAIN = 254;

/** Each IP is on the interface, and a route to its prefix exists in the main table. */
export async function validateIps(pod: Netns, ifname: string, index: number, ips: readonly IPConfig[]): Promise<void> {
  if (ips.length === 0) return;
  const addrs = await listAddresses(pod, { index });
  const routes: Record<4 | 6, RouteInfo[] | undefined> = { 4: undefined, 6: undefined };
  for (const ip of ips) {
    const c = cidrBytes(ip.address);
    if (!c) throw new CheckError(`invalid address ${ip.address} in prevResult`);
    if (!addrs.some((a) => a.prefixLen === c.prefixLen && sameIp(a.address, ip.address.slice(0, ip.address.indexOf('/'))))) {
      throw new CheckError(`Failed to match addr ${ip.address} on interface ${ifname}`);
    }
    const prefix = networkCidr(ip.address);
    const list = (routes[c.family] ??= await listRoutes(pod, c.family));
    if (!list.some((r) => r.table === RT_TABLE_MAIN && r.dst === prefix)) throw new CheckError(`Failed to find Gateway ${prefix} for interface ${ifname}`);
  }
}

/**
 * Each route exists: a default route is matched on its gateway alone (the reference looks
 * it up by gateway), any other on destination and, when given, gateway. The route's table
 * is honoured (the reference only looks in main).
 */
export async function validateRoutes(pod: Netns, routes: readonly Route[]): Promise<void> {
  const cache: Record<4 | 6, RouteInfo[] | undefined> = { 4: undefined, 6: undefined };
  for (const r of routes) {
    const c = cidrBytes(r.dst);
    if (!c) throw new CheckError(`Invalid static route found ${r.dst}`);
    const dst = networkCidr(r.dst);
    const list = (cache[c.family] ??= await listRoutes(pod, c.family));
    const table = r.table ?? RT_TABLE_MAIN;
    const found = list.some((have) => have.table === table && have.dst === dst && (r.gw === undefined || (have.gw !== undefined && sameIp(have.gw, r.gw))));
    if (!found) throw new CheckError(`Expected Route {Dst:${r.dst} GW:${r.gw ?? '<nil>'}} not found in routing table`);
  }
}
