// The steps ipvlan's and macvlan's verbs share. Both make a link on a master and hand it to the
// pod (lib/linux/lower-link.ts); each plugin's add.ts lists these steps in its own order (ipvlan
// takes the addresses before the link, macvlan after), and both DELs are plugins/pod-link-del.ts.
import { UndoStack, type CniRequest, type IPConfig, type Result } from '../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../lib/ipam/index.ts';
import {
  announceAddresses,
  configureIface,
  createLowerLink,
  deleteLink,
  Netns,
  openContainerNetns,
  resolveParent,
  type LinkInfo,
  type LowerLinkSpec,
} from '../lib/linux/index.ts';

/** What an ADD's steps work in: the pod, the master resolved, and the undo stack. */
export interface LowerLinkAdd {
  readonly pod: Netns;
  readonly parent: { readonly ns: Netns; readonly link: LinkInfo };
  readonly undo: UndoStack;
}

/** The config fields that choose the master. */
export interface MasterConf {
  readonly master?: string;
  readonly linkInContainer: boolean;
  readonly mtu: number;
}

/**
 * Runs an ADD's `steps` with the pod's netns and the master resolved (on the node, or in the pod
 * with linkInContainer; the MTU checked against it). When a step fails, what the steps
 * registered on the undo stack is undone, so a failing ADD leaves no link and no allocation.
 */
export async function lowerLinkAdd<T>(kind: LowerLinkSpec['kind'], req: CniRequest, conf: MasterConf, steps: (at: LowerLinkAdd) => Promise<T>): Promise<T> {
  const pod = openContainerNetns(req);
  const node = Netns.host();
  const undo = new UndoStack(kind);
  try {
    const parent = await resolveParent(node, pod, { ...(conf.master && { master: conf.master }), inPod: conf.linkInContainer, mtu: conf.mtu });
    return await steps({ pod, parent, undo });
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
    node.close();
  }
}

/** The IPAM's addresses, released again if a later step fails. An answer without any is an error. */
export async function allocateAddresses(ipamType: string, req: CniRequest, undo: UndoStack): Promise<Result & { ips: IPConfig[] }> {
  const ipam = await ipamAdd(ipamType, req);
  undo.push('IPAM allocation', () => ipamDel(ipamType, req));
  if (!ipam.ips || ipam.ips.length === 0) throw new Error('IPAM plugin returned missing IP config');
  return { ...ipam, ips: ipam.ips };
}

/** The link of `spec` on the master, in the pod as req.ifname; deleted again if a later step fails. */
export async function createPodLink(at: LowerLinkAdd, spec: LowerLinkSpec, req: CniRequest, mtu: number): Promise<LinkInfo> {
  const link = await createLowerLink(spec, { parentNs: at.parent.ns, parentIndex: at.parent.link.index, pod: at.pod, ifname: req.ifname, ...(mtu && { mtu }) });
  at.undo.push(`${spec.kind} ${req.ifname}`, () => deleteLink(at.pod, link.index));
  return link;
}

/** The result's addresses and routes on the pod's link, announced to the neighbours first. */
export async function addressPodLink(pod: Netns, ifname: string, result: Result): Promise<void> {
  announceAddresses(pod, ifname);
  await configureIface(pod, ifname, result);
}
