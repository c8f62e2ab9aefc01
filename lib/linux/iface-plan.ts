// What configureIface does to one container interface, worked out from a result. Pure.
import type { Result } from '../cni-spec/result.ts';
import { cidrBytes, ipBytes, type IpFamily } from '../cni-spec/ip-bytes.ts';

export interface PlannedRoute {
  dst: string;
  gw?: string;
  priority?: number;
  table?: number;
  scope?: number;
}

export interface IfacePlan {
  addresses: { cidr: string; family: IpFamily }[];
  /** an IPv6 address is configured: IPv6 must be on for lo and the interface */
  enableIpv6: boolean;
  /**
   * an IPv6 address is configured: wait out DAD (when it runs at all) so that every address
   * of the result is usable when ADD returns. The reference waits only with an IPv6 gateway.
   */
  settleIpv6: boolean;
  routes: PlannedRoute[];
}

export class IfaceConfigError extends Error {
  override readonly name = 'IfaceConfigError';
}

/**
 * The reference's ipam.ConfigureIface decisions: only IPs whose `interface` index names
 * `ifname` are configured (IPs without an index are skipped; an index naming another
 * interface is an error); a route without `gw` goes through the first gateway of its family
 * among those IPs; a route's mtu and advmss are not applied.
 */
export function planIfaceConfig(result: Result, ifname: string): IfacePlan {
  const ifaces = result.interfaces ?? [];
  if (ifaces.length === 0) throw new IfaceConfigError('no interfaces to configure');
  const plan: IfacePlan = { addresses: [], enableIpv6: false, settleIpv6: false, routes: [] };
  const gateways: Partial<Record<IpFamily, string>> = {};
  for (const ipc of result.ips ?? []) {
    if (ipc.interface === undefined) continue;
    if (ipc.interface < 0 || ipc.interface >= ifaces.length || ifaces[ipc.interface]?.name !== ifname) {
      throw new IfaceConfigError(`failed to add IP addr ${ipc.address} to ${JSON.stringify(ifname)}: invalid interface index`);
    }
    const c = cidrBytes(ipc.address);
    if (!c) throw new IfaceConfigError(`failed to add IP addr ${ipc.address} to ${JSON.stringify(ifname)}: invalid address`);
    plan.addresses.push({ cidr: ipc.address, family: c.family });
    if (c.family === 6) plan.enableIpv6 = true;
    const gw = ipc.gateway;
    const gwFamily = gw === undefined ? undefined : ipBytes(gw)?.family;
    if (gw !== undefined && gwFamily && gateways[gwFamily] === undefined) gateways[gwFamily] = gw;
  }
  plan.settleIpv6 = plan.enableIpv6;
  for (const r of result.routes ?? []) {
    const family = cidrBytes(r.dst)?.family;
    if (!family) throw new IfaceConfigError(`invalid route destination ${JSON.stringify(r.dst)}`);
    const gw = r.gw ?? gateways[family];
    plan.routes.push({
      dst: r.dst,
      ...(gw !== undefined && { gw }),
      ...(r.priority !== undefined && { priority: r.priority }),
      ...(r.table !== undefined && { table: r.table }),
      ...(r.scope !== undefined && { scope: r.scope }),
    });
  }
  return plan;
}
