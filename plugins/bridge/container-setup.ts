// The container side of an L3 ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go,
// and ConfigureIface, https://github.com/containernetworking/plugins/blob/v1.9.0/pkg/ipam/ipam_linux.go), inside its netns.
import { configureIface, writeSysctl, type Netns } from '../../lib/linux/index.ts';
import type { Result } from '../../lib/cni-spec/index.ts';

/** Best effort, as the reference: a netns without IPv6 has no such files. */
function trySysctl(ns: Netns, key: string, value: string): void {
  try {
    writeSysctl(ns, key, value);
  } catch {
    // ignored
  }
}

/**
 * DAD is off unless enabledad: with hairpin a port hears its own neighbour solicitations
 * and would fail DAD; enhanced_dad (a nonce in the probes) makes DAD safe. arp_notify makes
 * the kernel send a gratuitous ARP when the link comes up. Set before the link goes up.
 */
export async function configureContainer(ns: Netns, ifname: string, result: Result, enableDad: boolean): Promise<void> {
  if (enableDad) {
    trySysctl(ns, `net/ipv6/conf/${ifname}/enhanced_dad`, '1');
    trySysctl(ns, `net/ipv6/conf/${ifname}/accept_dad`, '1');
  } else {
    trySysctl(ns, `net/ipv6/conf/${ifname}/accept_dad`, '0');
  }
  trySysctl(ns, `net/ipv4/conf/${ifname}/arp_notify`, '1');
  await configureIface(ns, ifname, result);
}
