// CHECK of prevResult's addresses and routes inside the container (the reference's
// ValidateExpectedInterfaceIPs and ValidateExpectedRoute).
import { cidrBytes, networkCidr, sameIp, type IPConfig, type Route } from '../../lib/cni-spec/index.ts';
import { listAddresses, listRoutes, type Netns, type RouteInfo } from '../../lib/linux/index.ts';
import { CheckError } from './check-links.ts';

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
