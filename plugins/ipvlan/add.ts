// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/ipvlan/ipvlan.go):
// the master, the addresses (the IPAM's, or chained without IPAM, prevResult's with its routes),
// then the ipvlan in the pod carrying them. Each step that leaves something registers its undo, so
// a failing ADD leaves no link and no allocation (the reference leaves the link when IPAM fails).
import { UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import { announceAddresses, configureIface, createLowerLink, deleteLink, Netns, openContainerNetns, resolveParent } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req, { forAdd: true });
  const pod = openContainerNetns(req);
  const node = Netns.host();
  const undo = new UndoStack('ipvlan');
  try {
    const parent = await resolveParent(node, pod, { ...(conf.master && { master: conf.master }), inPod: conf.linkInContainer, mtu: conf.mtu });
    // The addresses before the link (the reference makes the link first): an IPAM that refuses
    // its config answers with its own error, also on a kernel that cannot make ipvlan links.
    let base: Result;
    if (conf.ipamType === undefined) {
      // conf.ts refused an ADD without IPAM whose prevResult has no addresses
      base = req.prevResult ?? { cniVersion: req.cniVersion };
    } else {
      const ipamType = conf.ipamType;
      base = await ipamAdd(ipamType, req);
      undo.push('IPAM allocation', () => ipamDel(ipamType, req));
      if (!base.ips || base.ips.length === 0) throw new Error('IPAM plugin returned missing IP config');
    }
    const link = await createLowerLink(
      { kind: 'ipvlan', mode: conf.mode },
      { parentNs: parent.ns, parentIndex: parent.link.index, pod, ifname: req.ifname, ...(conf.mtu && { mtu: conf.mtu }) },
    );
    undo.push(`ipvlan ${req.ifname}`, () => deleteLink(pod, link.index));
    // All addresses are on the ipvlan, interface 0 of the result; prevResult's interfaces go.
    const result: Result = {
      cniVersion: req.cniVersion,
      interfaces: [{ name: req.ifname, mac: link.mac, sandbox: req.netns }],
      ips: (base.ips ?? []).map((ip) => ({ ...ip, interface: 0 })),
      routes: base.routes ?? [],
    };
    announceAddresses(pod, req.ifname);
    await configureIface(pod, req.ifname, result);
    // The reference puts the config's dns in the result, dropping the IPAM's or prevResult's.
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
