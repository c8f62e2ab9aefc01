// The VLAN gateway interface "<bridge>.<vlan>" (reference ensureVlanInterface, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go): a veth in the host
// netns whose peer is a bridge port on that VLAN, so the gateway address lives in the VLAN.
import { deleteLink, getLinkByName, setLinkUp, setupVeth, VethError, writeSysctl, type LinkInfo, type Netns } from '../../lib/linux/index.ts';
import { configurePort } from './port-setup.ts';
import { planPortVlans } from './vlan-plan.ts';

/** As on the bridge (bridge-setup.ts): its link-local address usable as soon as it exists. */
function noDad(host: Netns, name: string): void {
  try {
    writeSysctl(host, `net/ipv6/conf/${name}/accept_dad`, '0');
  } catch {
    // IPv6 off: nothing to detect
  }
}

/** Created on first use and then shared by every container on that VLAN: never removed. */
export async function ensureVlanGateway(host: Netns, bridge: LinkInfo, vlan: number, preserveDefaultVlan: boolean): Promise<LinkInfo> {
  const name = `${bridge.name}.${vlan}`;
  const existing = await getLinkByName(host, name);
  if (existing) return existing;
  try {
    let pair;
    try {
      pair = await setupVeth(host, host, { ifname: name, hostMaster: bridge.index, ...(bridge.mtu && { mtu: bridge.mtu }) });
    } catch (err) {
      // A parallel ADD on the same VLAN made it first: use theirs.
      const theirs = err instanceof VethError && err.code === 'EXISTS' ? await getLinkByName(host, name) : undefined;
      if (theirs) return theirs;
      throw err;
    }
    try {
      await configurePort(host, pair.host, { ifname: name, hairpin: false, isolated: false, vlans: planPortVlans(vlan, [], preserveDefaultVlan) });
      noDad(host, name);
      await setLinkUp(host, pair.container.index);
    } catch (err) {
      // Half made, it would be taken as ready by the next ADD.
      await deleteLink(host, pair.host.index).catch(() => {});
      throw err;
    }
    return { ...pair.container, up: true };
  } catch (err) {
    throw new Error(`failed to create vlan interface: failed to create vlan gateway ${JSON.stringify(name)}: ${(err as Error).message}`, { cause: err });
  }
}
