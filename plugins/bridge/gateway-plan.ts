// Gateways and default routes from the IPAM result (the reference's calcGateways). Pure.
import { cidrBytes, firstHost, networkCidr, type IPConfig, type IpFamily, type Route } from '../../lib/cni-spec/index.ts';

/** Index of the container interface in the result: [bridge, host veth, container veth]. */
export const CONTAINER_IFACE = 2;

export interface GatewayAddr {
  family: IpFamily;
  /** gateway/prefix of the container address it serves: what the bridge gets */
  cidr: string;
}

export interface GatewayPlan {
  ips: IPConfig[];
  routes: Route[];
  /** addresses for the bridge (or VLAN gateway interface); empty unless isGateway */
  gateways: GatewayAddr[];
}

const DEFAULT_DST: Record<IpFamily, string> = { 4: '0.0.0.0/0', 6: '::/0' };

/**
 * Every IP goes on the container interface. With isGateway an IP without gateway gets its
 * subnet's first address. With isDefaultGateway each family gets a default route through its
 * first gateway, unless IPAM already gave one with a `gw` (a default route without one does
 * not count, as in the reference).
 */
export function planGateways(ips: readonly IPConfig[], routes: readonly Route[], o: { isGateway: boolean; isDefaultGateway: boolean }): GatewayPlan {
  const plan: GatewayPlan = { ips: [], routes: [...routes], gateways: [] };
  const hasDefault = (f: IpFamily): boolean => plan.routes.some((r) => r.gw !== undefined && networkCidr(r.dst) === DEFAULT_DST[f]);
  for (const ipc of ips) {
    const c = cidrBytes(ipc.address);
    if (!c) throw new TypeError(`invalid IP address ${JSON.stringify(ipc.address)} from IPAM`);
    const ip: IPConfig = { ...ipc, interface: CONTAINER_IFACE };
    if (ip.gateway === undefined && o.isGateway) {
      const gw = firstHost(ipc.address);
      if (gw !== undefined) ip.gateway = gw;
    }
    if (o.isDefaultGateway && !hasDefault(c.family)) {
      plan.routes.push({ dst: DEFAULT_DST[c.family], ...(ip.gateway !== undefined && { gw: ip.gateway }) });
    }
    if (o.isGateway && ip.gateway !== undefined) plan.gateways.push({ family: c.family, cidr: `${ip.gateway}/${c.prefixLen}` });
    plan.ips.push(ip);
  }
  return plan;
}
