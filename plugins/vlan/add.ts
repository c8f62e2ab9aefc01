// ADD (reference cmdAdd and createVlan,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/vlan/vlan.go): the
// master, the vlan link born in the container's netns, the IPAM's addresses on it. Each step
// registers its undo, so a failing ADD leaves no link and no allocation.
import { CniError, ErrorCode, errorText, UndoStack, type CniRequest, type IPConfig, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import { configureIface, createVlan, deleteLink, getLinkByName, isNetlinkError, Netns, openContainerNetns, type LinkInfo } from '../../lib/linux/index.ts';
import { loadConf, masterMtuProblem, type VlanConf } from './conf.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const pod = openContainerNetns(req);
  const host = Netns.host();
  const undo = new UndoStack('vlan');
  try {
    const masterNs = conf.linkInContainer ? pod : host;
    const master = await findMaster(masterNs, conf);
    const vlan = await setupVlan({ masterNs, pod }, master, conf, req.ifname);
    undo.push(`vlan ${req.ifname}`, () => deleteLink(pod, vlan.index));

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
 * Creates the link from the master's netns straight into the container's under its final name:
 * the reference's temporary name works around old kernels that checked the name in the
 * creating netns; ours are past that, and one request less is one rename race less.
 */
async function setupVlan({ masterNs, pod }: { masterNs: Netns; pod: Netns }, master: LinkInfo, conf: VlanConf, ifname: string): Promise<LinkInfo> {
  const spec = { name: ifname, parentIndex: master.index, vlanId: conf.vlanId, ...(conf.mtu && { mtu: conf.mtu }) };
  try {
    await createVlan(masterNs, masterNs === pod ? spec : { ...spec, netnsFd: pod.fd });
  } catch (err) {
    if (isNetlinkError(err, 'EEXIST')) throw new Error(`failed to rename vlan to ${JSON.stringify(ifname)}: ${errorText(err)}`, { cause: err });
    throw new Error(`failed to create vlan: ${errorText(err)}`, { cause: err });
  }
  const link = await getLinkByName(pod, ifname);
  if (!link) throw new Error(`failed to refetch vlan ${JSON.stringify(ifname)}: Link not found`);
  return link;
}
