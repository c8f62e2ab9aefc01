// The vrf plugin's decisions, pure: which table a new VRF gets, which routes follow the
// interface into the VRF's table, which IPv6 addresses enslaving dropped, and whether a VRF
// still has members (reference vrf.go,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/vrf.go).
import type { AddrInfo, LinkInfo, RouteInfo } from '../../lib/linux/index.ts';

const RT_TABLE_MAIN = 254;
const RT_SCOPE_UNIVERSE = 0;
const TABLE_MAX = 2 ** 32 - 1;

/**
 * The lowest table id from 1 up that no VRF of the netns uses (findFreeRoutingTableID). Like
 * the reference, ids the kernel reserves (253 default, 254 main, 255 local) are not skipped: they
 * are reached only after 252 VRFs.
 */
export function freeTable(taken: Iterable<number>): number {
  const used = new Set(taken);
  for (let id = 1; id < TABLE_MAX; id++) if (!used.has(id)) return id;
  throw new Error('findFreeRoutingTableID: Failed to find an available routing id');
}

/**
 * The routes to carry into the VRF's table: the main table's routes through the interface with
 * universe scope (the reference's RouteListFiltered by OIF and scope, which leaves other tables
 * out). Local and connected IPv4 routes have host or link scope: the kernel moves those itself.
 */
export function routesToMove(routes: readonly RouteInfo[], index: number): RouteInfo[] {
  return routes.filter((r) => r.table === RT_TABLE_MAIN && r.index === index && r.scope === RT_SCOPE_UNIVERSE);
}

/** Global IPv6 addresses the interface had before and lost when enslaving cycled it (no keep_addr_on_down). */
export function lostAddresses(before: readonly AddrInfo[], after: readonly AddrInfo[]): AddrInfo[] {
  const key = (a: AddrInfo) => `${a.address}/${a.prefixLen}`;
  const kept = new Set(after.map(key));
  return before.filter((a) => a.family === 6 && a.scope === RT_SCOPE_UNIVERSE && !kept.has(key(a)));
}

/** The links enslaved to the VRF with that index (assignedInterfaces). */
export function vrfMembers(links: readonly LinkInfo[], vrfIndex: number): LinkInfo[] {
  return links.filter((l) => l.masterIndex === vrfIndex);
}
