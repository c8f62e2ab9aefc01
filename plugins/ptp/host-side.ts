// The host end of the pair (reference setupHostVeth and ip.EnableForward,
// https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/main/ptp/ptp.go): forwarding
// on, the gateway as a host address on the host veth, a host route to each container address.
import { addAddress, addRoute, isExists, writeSysctl, type Netns } from '../../lib/linux/index.ts';
import type { AddrPlan } from './route-plan.ts';

export function enableForwarding(host: Netns, addrs: readonly AddrPlan[]): void {
  try {
    if (addrs.some((a) => a.hostBits === 32)) writeSysctl(host, 'net/ipv4/ip_forward', '1');
    if (addrs.some((a) => a.hostBits === 128)) writeSysctl(host, 'net/ipv6/conf/all/forwarding', '1');
  } catch (err) {
    throw new Error(`Could not enable IP forwarding: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * DAD off on the host veth before its carrier comes up (when the container end goes up): the
 * link-local address the kernel then makes is usable at once. While it is tentative the node
 * sends no neighbour solicitation for traffic it forwards to the pod (pod → pod over IPv6 is
 * lost for a second or two after ADD), and the gateway address (the same on every host veth)
 * would go through DAD too.
 */
export function skipHostDad(host: Netns, veth: { name: string }, addrs: readonly AddrPlan[]): void {
  if (!addrs.some((a) => a.hostBits === 128)) return;
  try {
    writeSysctl(host, `net/ipv6/conf/${veth.name}/accept_dad`, '0');
  } catch {
    // IPv6 off on the node: adding the address fails in configureHostSide with the kernel's reason.
  }
}

/** The gateway as a host address on the host veth, and a host route to each container address. */
export async function configureHostSide(host: Netns, veth: { name: string; index: number }, addrs: readonly AddrPlan[]): Promise<void> {
  for (const a of addrs) {
    const gw = `${a.gateway}/${a.hostBits}`;
    try {
      await addAddress(host, veth.index, gw);
    } catch (err) {
      throw new Error(`failed to add IP addr ${gw} to veth: ${(err as Error).message}`, { cause: err });
    }
    try {
      await addRoute(host, { dst: `${a.ip}/${a.hostBits}`, index: veth.index });
    } catch (err) {
      if (!isExists(err)) throw new Error(`failed to add route on host: ${(err as Error).message}`, { cause: err });
    }
  }
}
