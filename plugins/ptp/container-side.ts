// The container end of the pair, inside its netns (reference setupContainerVeth,
// https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/main/ptp/ptp.go).
import type { Result } from '../../lib/cni-spec/index.ts';
import { addRoute, configureIface, deleteRoute, writeSysctl, type Netns } from '../../lib/linux/index.ts';
import type { AddrPlan } from './route-plan.ts';

const RT_SCOPE_LINK = 253;

/**
 * Addresses, the IPAM's routes, then for each address the kernel's prefix route swapped for a
 * host route to the gateway and the prefix through it. DAD is off on the container end: its
 * only neighbour is the host end, and a tentative address would leave the pod unreachable for
 * a second or two after ADD returns.
 */
export async function configureContainerSide(pod: Netns, link: { name: string; index: number }, draft: Result, addrs: readonly AddrPlan[]): Promise<void> {
  const { name: ifname, index } = link;
  if (addrs.some((a) => a.hostBits === 128)) trySysctl(pod, `net/ipv6/conf/${ifname}/accept_dad`, '0');
  await configureIface(pod, ifname, draft);
  for (const a of addrs) {
    try {
      await deleteRoute(pod, a.prefix, index);
    } catch (err) {
      throw new Error(`failed to delete route ${a.prefix} dev ${ifname}: ${(err as Error).message}`, { cause: err });
    }
    for (const r of [
      { dst: `${a.gateway}/${a.hostBits}`, index, scope: RT_SCOPE_LINK, src: a.ip },
      { dst: a.prefix, gw: a.gateway, index, src: a.ip },
    ]) {
      try {
        await addRoute(pod, r);
      } catch (err) {
        throw new Error(`failed to add route ${r.dst}${r.gw ? ` via ${r.gw}` : ''} dev ${ifname}: ${(err as Error).message}`, { cause: err });
      }
    }
  }
}

/** A netns without IPv6 has no such file; the address step reports that properly. */
function trySysctl(ns: Netns, key: string, value: string): void {
  try {
    writeSysctl(ns, key, value);
  } catch {
    // ignored
  }
}
