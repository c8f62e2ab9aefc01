// Gratuitous ARP and unsolicited neighbour advertisements when the addresses go on: the
// link's MAC is new to the network, whose neighbours may still cache another MAC for a
// reused address (the reference's macvlan and ipvlan cmdAdd set arp_notify and ndisc_notify and
// ignore failures).
import type { Netns } from './netns.ts';
import { writeSysctl } from './sysctl.ts';

export function announceAddresses(pod: Netns, ifname: string): void {
  for (const key of [`net/ipv4/conf/${ifname}/arp_notify`, `net/ipv6/conf/${ifname}/ndisc_notify`]) {
    try {
      writeSysctl(pod, key, '1');
    } catch {
      // IPv6 off in the pod: there is nothing to announce over it
    }
  }
}
