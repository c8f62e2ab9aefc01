// A veth pair whose host end is a port of the bridge (reference setupVeth, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go).
import { errorText } from '../../lib/cni-spec/index.ts';
import {
  addPortVlans,
  clearPortVlans,
  parseMac,
  setBridgePortOptions,
  setupVeth,
  writeSysctl,
  type LinkInfo,
  type Netns,
  type VethPair,
} from '../../lib/linux/index.ts';
import type { PortVlanPlan } from './vlan-plan.ts';

export interface PortSpec {
  /** the container-side name; in `container` */
  ifname: string;
  mtu?: number | undefined;
  mac?: string | undefined;
  hairpin: boolean;
  isolated: boolean;
  vlans?: PortVlanPlan | undefined;
}

const q = (s: string): string => JSON.stringify(s);

/** Port flags and VLAN entries; a new port has hairpin and isolation off already. */
export async function configurePort(host: Netns, port: LinkInfo, spec: PortSpec): Promise<void> {
  try {
    if (spec.hairpin) await setBridgePortOptions(host, port.index, { hairpin: true });
  } catch (err) {
    throw new Error(`failed to setup hairpin mode for ${port.name}: ${errorText(err)}`, { cause: err });
  }
  try {
    if (spec.isolated) await setBridgePortOptions(host, port.index, { isolated: true });
  } catch (err) {
    throw new Error(`failed to set isolation on bridge port ${port.name}: ${errorText(err)}`, { cause: err });
  }
  if (!spec.vlans) return;
  if (spec.vlans.clear) {
    try {
      await clearPortVlans(host, port.index);
    } catch (err) {
      throw new Error(`failed to remove default vlan on interface ${q(port.name)}: ${errorText(err)}`, { cause: err });
    }
  }
  try {
    await addPortVlans(host, port.index, spec.vlans.runs);
  } catch (err) {
    throw new Error(`failed to setup vlan tag on interface ${q(port.name)}: ${errorText(err)}`, { cause: err });
  }
}

/**
 * Creates the pair, host end up and enslaved by the creating request. The caller registers
 * its removal (deleting the host end takes the container end with it) before anything else.
 */
export async function createPort({ host, container }: { host: Netns; container: Netns }, bridge: LinkInfo, spec: PortSpec): Promise<VethPair> {
  const mac = spec.mac === undefined ? undefined : parseMac(spec.mac);
  const pair = await setupVeth(host, container, {
    ifname: spec.ifname,
    hostMaster: bridge.index,
    ...(spec.mtu && { mtu: spec.mtu }),
    ...(mac && { mac }),
  });
  try {
    writeSysctl(host, `net/ipv6/conf/${pair.host.name}/accept_ra`, '0');
  } catch {
    // IPv6 may be off on the host; the reference ignores this too
  }
  return pair;
}
