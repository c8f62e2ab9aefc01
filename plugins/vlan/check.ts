// CHECK (reference cmdCheck and validateCniContainerInterface,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/vlan/vlan.go): the IPAM's
// check, the master, then the container's link (a vlan with the configured ID, MAC and MTU), its
// addresses and prevResult's routes.
import { CniError, ErrorCode, type CniRequest, type Interface } from '../../lib/cni-spec/index.ts';
import { ipamCheck } from '../../lib/ipam/index.ts';
import {
  CheckError,
  getLinkByName,
  getLinkDetail,
  Netns,
  openContainerNetns,
  validateIps,
  validateRoutes,
  vlanIdOf,
  type LinkDetail,
} from '../../lib/linux/index.ts';
import { loadConf, type VlanConf } from './conf.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const pod = openContainerNetns(req);
  const host = Netns.host();
  try {
    await ipamCheck(conf.ipamType, req);
    const prev = req.prevResult;
    if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'vlan: Required prevResult missing');
    const want = (prev.interfaces ?? []).find((i) => i.name === req.ifname && i.sandbox === req.netns);
    if (!want) throw new CheckError(`Sandbox in prevResult  doesn't match configured netns: ${req.netns}`);
    if (!(await getLinkByName(conf.linkInContainer ? pod : host, conf.master))) {
      throw new CheckError(`failed to lookup master ${JSON.stringify(conf.master)}: Link not found`);
    }
    const link = await validateVlanIface(pod, want, conf);
    await validateIps(pod, req.ifname, link.index, prev.ips ?? []);
    await validateRoutes(pod, prev.routes ?? []);
  } finally {
    pod.close();
    host.close();
  }
}

async function validateVlanIface(pod: Netns, want: Interface, conf: VlanConf): Promise<LinkDetail> {
  if (want.name === '') throw new CheckError('Container interface name missing in prevResult: ');
  const link = await getLinkDetail(pod, want.name);
  if (!link) throw new CheckError(`vlan: Container Interface name in prevResult: ${want.name} not found`);
  const vid = vlanIdOf(link);
  if (vid === undefined) throw new CheckError(`Error: Container interface ${want.name} not of type vlan`);
  if (want.mac && want.mac !== link.mac) throw new CheckError(`vlan: Interface ${want.name} Mac ${want.mac} doesn't match container Mac: ${link.mac}`);
  // The reference's message, copied from tuning, as it is.
  if (vid !== conf.vlanId) throw new CheckError(`Error: Tuning link ${want.name} configured promisc is ${conf.vlanId}, current value is ${vid}`);
  if (conf.mtu !== 0 && conf.mtu !== link.mtu)
    throw new CheckError(`Error: Tuning configured MTU of ${want.name} is ${conf.mtu}, current value is ${link.mtu}`);
  return link;
}
