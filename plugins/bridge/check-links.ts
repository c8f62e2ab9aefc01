// CHECK's view of the links prevResult names (reference cmdCheck, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go): the bridge, the container
// interface and the host veth between them.
import type { Interface } from '../../lib/cni-spec/index.ts';
import { CheckError, getLinkDetail, type LinkDetail, type Netns } from '../../lib/linux/index.ts';

export async function validateBridge(host: Netns, want: Interface, promiscMode: boolean): Promise<LinkDetail> {
  const br = await getLinkDetail(host, want.name);
  if (!br) throw new CheckError(`Link not found: ${want.name}`);
  if (br.kind !== 'bridge') throw new CheckError(`Error: ${want.name} not a bridge`);
  if (want.mac && want.mac !== br.mac) throw new CheckError(`Error: bridge ${want.name} Mac ${want.mac} doesn't match: ${br.mac}`);
  if (br.promisc !== promiscMode) {
    throw new CheckError(`Error: bridge ${want.name} promisc mode does not match configured: ${promiscMode}, found: ${br.promisc}`);
  }
  return br;
}

/**
 * The host veth among prevResult's other interfaces: a veth in the host netns whose peer is
 * the container interface and whose master is the bridge. Anything else is not ours: skipped.
 */
export async function findHostVeth(host: Netns, candidates: readonly Interface[], bridge: LinkDetail, container: LinkDetail): Promise<LinkDetail | undefined> {
  for (const intf of candidates) {
    const link = await getLinkDetail(host, intf.name);
    if (!link) throw new CheckError(`Link not found: ${intf.name}`);
    if (link.kind !== 'veth') continue;
    if (link.index !== container.peerIndex || link.peerIndex !== container.index || link.masterIndex !== bridge.index) continue;
    if (intf.mac && intf.mac !== link.mac) throw new CheckError(`Interface ${intf.name} Mac ${intf.mac} doesn't match: ${link.mac}`);
    return link;
  }
  return undefined;
}
