// ADD (reference cmdAdd and createVlan,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/vlan/vlan.go): the
// master, the vlan link born in the container's netns (renamed there), the IPAM's addresses on it. Each step
// registers its undo, so a failing ADD leaves no link and no allocation.
import { CniError, ErrorCode, errorText, UndoStack, type CniRequest, type IPConfig, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import {
  changeLink,
  configureIface,
  createVlan,
  deleteLink,
  getLinkByName,
  Netns,
  openContainerNetns,
  randomVethName,
  type LinkInfo,
} from '../../lib/linux/index.ts';
import { loadConf, masterMtuProblem, type VlanConf } from './conf.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const pod = openContainerNetns(req);
  const host = Netns.host();
  const undo = new UndoStack('vlan');
  try {
    const masterNs = conf.linkInContainer ? pod : host;
    const master = await findMaster(masterNs, conf);
    const vlan = await setupVlan({ masterNs, pod, undo }, master, conf, req.ifname);

    const ipam = await ipamAdd(conf.ipamType, req);
    undo.push('IPAM allocation', () => ipamDel(conf.ipamType, req));
    if (!ipam.ips || ipam.ips.length === 0) throw new Error('IPAM plugin returned missing IP config');
    // All addresses belong to the vlan link, interface 0 of the result.
    const ips: IPConfig[] = ipam.ips.map((ip) => ({ ...ip, interface: 0 }));
    const result: Result = {
      cniVersion: req.cniVersion,
      interfaces: [{ name: req.ifname, mac: vlan.mac, sandbox: req.netns }],
      ips,
      routes: ipam.routes ?? [],
    };
    await configureIface(pod, req.ifname, result);
    // The reference sets the result's DNS to the config's, whatever the IPAM returned.
    return { ...result, ...(conf.dns && { dns: conf.dns }) };
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
    host.close();
  }
}

/** The master, and the MTU rule that needs it (code 7, as the reference's loadConf refuses it). */
async function findMaster(ns: Netns, conf: VlanConf): Promise<LinkInfo> {
  const master = await getLinkByName(ns, conf.master);
  if (!master) throw new Error(`failed to lookup master ${JSON.stringify(conf.master)}: Link not found`);
  const problem = masterMtuProblem(conf.mtu, master.mtu);
  if (problem) throw new CniError(ErrorCode.InvalidNetworkConfig, problem, `mtu: ${problem}`);
  return master;
}

/**
 * Creates the link from the master's netns straight into the container's under a random name,
 * registers its undo, then renames it to `ifname` inside the container. Not under its final name
 * at once: the kernel looks a new link's name up in the netns of the socket that asks
 * (rtnl_newlink), so a node with its own `eth0` would refuse the pod's `eth0` (the reference's
 * "kernel bug" note in createVlan).
 */
async function setupVlan(
  { masterNs, pod, undo }: { masterNs: Netns; pod: Netns; undo: UndoStack },
  master: LinkInfo,
  conf: VlanConf,
  ifname: string,
): Promise<LinkInfo> {
  const tmpName = randomVethName();
  const spec = { name: tmpName, parentIndex: master.index, vlanId: conf.vlanId, ...(conf.mtu && { mtu: conf.mtu }) };
  try {
    await createVlan(masterNs, masterNs === pod ? spec : { ...spec, netnsFd: pod.fd });
  } catch (err) {
    throw new Error(`failed to create vlan: ${errorText(err)}`, { cause: err });
  }
  const made = await getLinkByName(pod, tmpName);
  if (!made) throw new Error(`failed to refetch vlan ${JSON.stringify(tmpName)}: Link not found`);
  undo.push(`vlan ${ifname}`, () => deleteLink(pod, made.index));
  try {
    await changeLink(pod, made.index, { name: ifname });
  } catch (err) {
    throw new Error(`failed to rename vlan to ${JSON.stringify(ifname)}: ${errorText(err)}`, { cause: err });
  }
  return { ...made, name: ifname };
}
