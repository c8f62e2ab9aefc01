// The routes ptp sets up for each container address. Pure.
//
// A veth is no point-to-point device, so (reference setupContainerVeth) the container address
// keeps its prefix, but the kernel's prefix route is replaced: the gateway as a host route
// through the veth, and the prefix through the gateway. Everything then goes through the host,
// where the gateway lives as a host address on the host veth with a host route back to the
// container address (setupHostVeth).
import { cidrBytes, networkCidr, type IPConfig } from '../../lib/cni-spec/index.ts';

export interface AddrPlan {
  /** "10.244.1.5/24" */
  readonly address: string;
  /** "10.244.1.5" */
  readonly ip: string;
  /** the kernel's prefix route to remove: "10.244.1.0/24" */
  readonly prefix: string;
  readonly gateway: string;
  /** 32 or 128 */
  readonly hostBits: 32 | 128;
}

export class RoutePlanError extends Error {
  override readonly name = 'RoutePlanError';
}

export function planAddrs(ips: readonly IPConfig[]): AddrPlan[] {
  return ips.map((ipc) => {
    const c = cidrBytes(ipc.address);
    if (!c) throw new RoutePlanError(`invalid address ${ipc.address}`);
    // host-local always gives one; a gateway-less IPAM result has nothing for the host side.
    if (!ipc.gateway) throw new RoutePlanError(`IPAM result for ${ipc.address} has no gateway: ptp needs one`);
    const gw = cidrBytes(`${ipc.gateway}/${c.family === 4 ? 32 : 128}`);
    if (!gw || gw.family !== c.family) throw new RoutePlanError(`invalid gateway ${ipc.gateway} for ${ipc.address}`);
    const ip = ipc.address.slice(0, ipc.address.indexOf('/'));
    return { address: ipc.address, ip, prefix: networkCidr(ipc.address) ?? ipc.address, gateway: ipc.gateway, hostBits: c.family === 4 ? 32 : 128 };
  });
}
