// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/host-device/host-device.go):
// find the node device, move it into the container's netns under CNI_IFNAME (its node name kept
// as its alias), then the IPAM's addresses on it. A DPDK device stays where it is: the result
// names the interface and carries the IPAM's addresses, nothing is configured. Each step
// registers its undo, so a failing ADD leaves the device on the node, as it was, and no allocation.
import { UndoStack, type CniRequest, type Interface, type IPConfig, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import { configureIface, Netns, openContainerNetns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { findHostDevice } from './find-device.ts';
import { moveLinkIn } from './move.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const pod = openContainerNetns(req);
  const host = Netns.host();
  const undo = new UndoStack('host-device');
  try {
    const iface: Interface = { name: req.ifname, sandbox: req.netns };
    if (!conf.dpdkMode) {
      let dev;
      try {
        dev = await findHostDevice(host, conf);
      } catch (err) {
        throw new Error(`failed to find host device: ${(err as Error).message}`, { cause: err });
      }
      const moved = await moveLinkIn({ host, pod }, dev, req.ifname, undo);
      iface.mac = moved.mac;
    }
    const result: Result = { cniVersion: req.cniVersion, interfaces: [iface] };
    if (conf.ipamType === '') return result;

    const ipam = await ipamAdd(conf.ipamType, req);
    undo.push('IPAM allocation', () => ipamDel(conf.ipamType, req));
    if (!ipam.ips || ipam.ips.length === 0) throw new Error('IPAM plugin returned missing IP config');
    // All addresses belong to the moved device, interface 0 of the result.
    const ips: IPConfig[] = ipam.ips.map((ip) => ({ ...ip, interface: 0 }));
    const withIps: Result = { ...result, ips, routes: ipam.routes ?? [] };
    if (!conf.dpdkMode) await configureIface(pod, req.ifname, withIps);
    // The reference sets the result's DNS to the config's, whatever the IPAM returned.
    return { ...withIps, ...(conf.dns && { dns: conf.dns }) };
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
    host.close();
  }
}
