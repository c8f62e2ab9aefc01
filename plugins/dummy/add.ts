// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/dummy/dummy.go):
// an allocation from the IPAM, the dummy link in the container's netns, the addresses on it. A
// failing ADD removes the link and releases the allocation.
import { UndoStack, type CniRequest, type Interface, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import { configureIface, createDummy, deleteLink, getLinkByName, openContainerNetns, type Netns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export class DummyError extends Error {
  override readonly name = 'DummyError';
}

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const pod = openContainerNetns(req);
  const undo = new UndoStack('dummy');
  try {
    // IPAM before the link (the reference makes the link first): a fault in the ipam section is
    // then answered (code 7) before anything in the pod changes, whatever links the kernel has.
    const ipam = await ipamAdd(conf.ipamType, req);
    undo.push('IPAM allocation', () => ipamDel(conf.ipamType, req));
    if (!ipam.ips || ipam.ips.length === 0) throw new DummyError('IPAM plugin returned missing IP config');
    const iface = await setupDummy(pod, req, undo);
    // Every address goes on the dummy link, interface 0 of the result.
    const result: Result = { ...ipam, cniVersion: req.cniVersion, interfaces: [iface], ips: ipam.ips.map((ip) => ({ ...ip, interface: 0 })) };
    await configureIface(pod, req.ifname, result);
    return result;
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
  }
}

async function setupDummy(pod: Netns, req: CniRequest, undo: UndoStack): Promise<Interface> {
  try {
    await createDummy(pod, req.ifname);
  } catch (err) {
    throw new DummyError(`failed to create dummy: ${(err as Error).message}`, { cause: err });
  }
  const link = await getLinkByName(pod, req.ifname);
  if (!link) throw new DummyError(`failed to fetch dummy${JSON.stringify(req.ifname)}: Link not found`);
  undo.push(`dummy ${req.ifname}`, () => deleteLink(pod, link.index));
  return { name: req.ifname, mac: link.mac, sandbox: req.netns };
}
