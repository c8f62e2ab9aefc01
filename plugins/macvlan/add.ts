// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/macvlan/macvlan.go):
// the master and its MTU, the macvlan in the pod, then either the IPAM's addresses on it or,
// without IPAM, just the link up. Each step that leaves something registers its undo, so a
// failing ADD leaves no link and no allocation.
import { UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import {
  announceAddresses,
  configureIface,
  createLowerLink,
  deleteLink,
  Netns,
  openContainerNetns,
  parseMac,
  resolveParent,
  setLinkUp,
} from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req, { forAdd: true });
  const pod = openContainerNetns(req);
  const node = Netns.host();
  const undo = new UndoStack('macvlan');
  try {
    const parent = await resolveParent(node, pod, { ...(conf.master && { master: conf.master }), inPod: conf.linkInContainer, mtu: conf.mtu });
    const mac = conf.mac === undefined ? undefined : parseMac(conf.mac);
    const link = await createLowerLink(
      { kind: 'macvlan', mode: conf.mode, ...(mac && { mac }), ...(conf.bcQueueLen && { bcQueueLen: conf.bcQueueLen }) },
      { parentNs: parent.ns, parentIndex: parent.link.index, pod, ifname: req.ifname, ...(conf.mtu && { mtu: conf.mtu }) },
    );
    undo.push(`macvlan ${req.ifname}`, () => deleteLink(pod, link.index));
    const result: Result = { cniVersion: req.cniVersion, interfaces: [{ name: req.ifname, mac: link.mac, sandbox: req.netns }] };
    if (conf.ipamType === undefined) {
      await upOnly(pod, req.ifname, link.index);
    } else {
      const ipamType = conf.ipamType;
      const ipam = await ipamAdd(ipamType, req);
      undo.push('IPAM allocation', () => ipamDel(ipamType, req));
      if (!ipam.ips || ipam.ips.length === 0) throw new Error('IPAM plugin returned missing IP config');
      // All addresses are on the macvlan, interface 0 of the result.
      result.ips = ipam.ips.map((ip) => ({ ...ip, interface: 0 }));
      result.routes = ipam.routes ?? [];
      announceAddresses(pod, req.ifname);
      await configureIface(pod, req.ifname, result);
    }
    // The reference puts the config's dns in the result, dropping the IPAM's.
    if (conf.dns) result.dns = conf.dns;
    return result;
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
    node.close();
  }
}

async function upOnly(pod: Netns, ifname: string, index: number): Promise<void> {
  try {
    await setLinkUp(pod, index);
  } catch (err) {
    throw new Error(`failed to set ${JSON.stringify(ifname)} UP: ${(err as Error).message}`, { cause: err });
  }
}
