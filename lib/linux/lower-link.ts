// macvlan and ipvlan links: made on a parent (the "master") and handed to a pod netns, as the
// reference's createMacvlan/createIpvlan do
// (https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/macvlan/macvlan.go).
//
// The link is created under a random temporary name and renamed inside the pod. The kernel looks
// an RTM_NEWLINK's IFLA_IFNAME up in the sending socket's netns before it creates anything, so
// creating "eth0" from the node's socket fails with EEXIST whenever the node has an eth0 itself.
import { CniError, ErrorCode } from '../cni-spec/errors.ts';
import { getLinkByIndex, getLinkByName, type LinkInfo } from './link.ts';
import { encodeNewIpvlan, encodeNewMacvlan, type IpvlanMode, type MacvlanMode, type NewLowerLink } from './link-msg.ts';
import { isNetlinkError, nl } from './netlink-error.ts';
import type { Netns } from './netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL, RTM_NEWLINK, rtnlRequest } from './nl-request.ts';
import { lowerLinkMtuProblem } from './mtu.ts';
import { listRoutes } from './route.ts';
import { randomVethName } from './veth.ts';

export { IPVLAN_MODE, MACVLAN_MODE, type IpvlanMode, type MacvlanMode } from './link-msg.ts';

export class LowerLinkError extends Error {
  override readonly name = 'LowerLinkError';
}

export type LowerLinkSpec = { kind: 'macvlan'; mode: MacvlanMode; mac?: Uint8Array; bcQueueLen?: number } | { kind: 'ipvlan'; mode: IpvlanMode };

export interface LowerLinkPlace {
  /** the netns the parent lives in: the node's, or the pod's with linkInContainer */
  parentNs: Netns;
  parentIndex: number;
  pod: Netns;
  /** the name it ends up with in the pod */
  ifname: string;
  mtu?: number;
}

const ATTEMPTS = 10;

function encode(spec: LowerLinkSpec, link: NewLowerLink): Buffer {
  return spec.kind === 'macvlan'
    ? encodeNewMacvlan({ ...link, mode: spec.mode, ...(spec.mac && { mac: spec.mac }), ...(spec.bcQueueLen && { bcQueueLen: spec.bcQueueLen }) })
    : encodeNewIpvlan({ ...link, mode: spec.mode });
}

/**
 * Makes the link in the pod under a temporary name (the parent's netns socket sends it, with
 * IFLA_NET_NS_FD when that is not the pod), then renames it to `ifname`. On a failed rename the
 * link is deleted again. Errors carry the reference's wording.
 */
export async function createLowerLink(spec: LowerLinkSpec, at: LowerLinkPlace): Promise<LinkInfo> {
  const sameNs = at.parentNs === at.pod;
  const tmp = await createUnderTempName(spec, at, sameNs);
  const made = await getLinkByName(at.pod, tmp);
  if (!made) throw new LowerLinkError(`failed to refetch ${spec.kind} ${JSON.stringify(tmp)}`);
  try {
    await nl('RTM_SETLINK', () => at.pod.rtnl.setLink({ index: made.index }, { ifname: at.ifname }));
  } catch (err) {
    await deleteQuietly(at.pod, made.index);
    throw new LowerLinkError(`failed to rename ${spec.kind} to ${JSON.stringify(at.ifname)}: ${(err as Error).message}`, { cause: err });
  }
  return { ...made, name: at.ifname };
}

/** A random free name: another try when it is taken. */
async function createUnderTempName(spec: LowerLinkSpec, at: LowerLinkPlace, sameNs: boolean): Promise<string> {
  for (let i = 1; ; i++) {
    const tmp = randomVethName();
    const link: NewLowerLink = { name: tmp, parent: at.parentIndex, ...(at.mtu && { mtu: at.mtu }), ...(!sameNs && { netnsFd: at.pod.fd }) };
    try {
      await rtnlRequest(at.parentNs, RTM_NEWLINK, encode(spec, link), NLM_F_CREATE | NLM_F_EXCL);
      return tmp;
    } catch (err) {
      if (isNetlinkError(err, 'EEXIST') && i < ATTEMPTS) continue;
      throw new LowerLinkError(`failed to create ${spec.kind}: ${(err as Error).message}`, { cause: err });
    }
  }
}

async function deleteQuietly(ns: Netns, index: number): Promise<void> {
  try {
    await nl('RTM_DELLINK', () => ns.rtnl.delLink({ index }));
  } catch {
    // the caller reports the failure that brought it here
  }
}

/** The parent by name in its netns: a missing one is a config problem (code 7), named as the reference names it. */
export async function findParent(ns: Netns, name: string): Promise<LinkInfo> {
  const link = await getLinkByName(ns, name);
  if (!link) throw new CniError(ErrorCode.InvalidNetworkConfig, `failed to lookup master ${JSON.stringify(name)}: Link not found`);
  return link;
}

const RT_TABLE_MAIN = 254;

/**
 * The reference's getDefaultRouteInterfaceName: the link of the first default route of the main
 * table, IPv4 before IPv6.
 */
export async function defaultRouteInterface(ns: Netns): Promise<string> {
  for (const family of [4, 6] as const) {
    for (const r of await listRoutes(ns, family)) {
      if (r.table !== RT_TABLE_MAIN || r.index === undefined || !/^(0\.0\.0\.0|::)\/0$/.test(r.dst)) continue;
      const link = await getLinkByIndex(ns, r.index);
      if (link) return link.name;
    }
  }
  throw new LowerLinkError('no default route interface found');
}

export interface ParentChoice {
  /** `master`; absent: the default route's interface in the parent's netns */
  master?: string;
  /** linkInContainer: the parent lives in the pod */
  inPod: boolean;
  /** the MTU asked for: checked against the parent's */
  mtu?: number;
}

/**
 * The parent's netns, the parent, and the MTU checked against it: everything the reference's
 * loadConf resolves on the node before ADD or CHECK changes anything. A bad MTU is code 7.
 */
export async function resolveParent(node: Netns, pod: Netns, c: ParentChoice): Promise<{ ns: Netns; link: LinkInfo }> {
  const ns = c.inPod ? pod : node;
  const name = c.master || (await defaultRouteInterface(ns));
  const link = await findParent(ns, name);
  const problem = c.mtu === undefined ? undefined : lowerLinkMtuProblem(c.mtu, link.mtu);
  if (problem) throw new CniError(ErrorCode.InvalidNetworkConfig, problem, `mtu: ${problem}`);
  return { ns, link };
}
