// Finding the host side of the container's veth the way the reference does (getHostInterface):
// the peer index of CNI_IFNAME inside the container, looked up in the host netns, must name an
// interface of prevResult that has no sandbox. Errors carry the reference's messages.
import { CniError, ErrorCode, type Interface } from '../../lib/cni-spec/index.ts';
import { getLinkDetail, getLinkWithQueue, type LinkInfo, type Netns } from '../../lib/linux/index.ts';

const bad = (msg: string) => new CniError(ErrorCode.InvalidNetworkConfig, msg);

/** The peer index of `ifname` in `pod`; undefined when there is no such link. */
export async function vethPeerIndex(pod: Netns, ifname: string): Promise<number | undefined> {
  const d = await getLinkDetail(pod, ifname);
  if (!d) return undefined;
  if (d.kind !== 'veth') throw bad(`container interface ${ifname} has no veth peer: interface ${JSON.stringify(ifname)} was not a veth interface`);
  return d.peerIndex;
}

/**
 * DEL: the host veth of this attachment, or undefined when nothing proves which link it is.
 * The pod controls its netns, so the peer index of its CNI_IFNAME can name any host link (a
 * pod with CAP_NET_ADMIN can re-create eth0 as a veth whose peer index is another pod's
 * veth or a NIC). The link it names counts only if it is a veth that `prevResult` lists as a
 * host-side interface (no sandbox); without `prevResult` nothing is proved.
 */
export async function ownedHostVeth(host: Netns, pod: Netns, ifname: string, interfaces: readonly Interface[] | undefined): Promise<number | undefined> {
  const hostSide = new Set((interfaces ?? []).filter((i) => !i.sandbox).map((i) => i.name));
  if (hostSide.size === 0) return undefined;
  const peer = await vethPeerIndex(pod, ifname).catch(() => undefined);
  if (!peer) return undefined;
  const link = await getLinkWithQueue(host, peer);
  return link?.kind === 'veth' && hostSide.has(link.name) ? link.index : undefined;
}

export async function findHostVeth(host: Netns, pod: Netns, ifname: string, interfaces: readonly Interface[]): Promise<LinkInfo & { txqlen: number }> {
  if (interfaces.length === 0) throw bad('no interfaces provided');
  const peer = await vethPeerIndex(pod, ifname);
  if (peer === undefined) throw bad(`container interface ${ifname} has no veth peer: could not look up ${JSON.stringify(ifname)}: Link not found`);
  if (peer <= 0) throw bad(`container interface ${ifname} has no veth peer: <nil>`);
  const link = await getLinkWithQueue(host, peer);
  if (!link) throw bad(`veth peer with index ${peer} is not in host ns`);
  if (!interfaces.some((i) => !i.sandbox && i.name === link.name)) throw bad('no veth peer of container interface found in host ns');
  return link;
}
