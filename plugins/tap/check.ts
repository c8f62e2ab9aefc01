// CHECK (reference cmdCheck, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/tap/tap.go):
// the IPAM's check (with an ipam.type), prevResult's interface in this netns, then its addresses
// and routes. As in the reference the device's own attributes (MAC, MTU, flags) are not compared;
// a tap that is gone fails the address check, or, with no addresses, the lookup below.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamCheck } from '../../lib/ipam/index.ts';
import { CheckError, getLinkByName, openContainerNetns, validateIps, validateRoutes } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const pod = openContainerNetns(req);
  try {
    if (conf.ipamType !== '') await ipamCheck(conf.ipamType, req);
    const prev = req.prevResult;
    if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'Required prevResult missing');
    const want = (prev.interfaces ?? []).find((i) => i.name === req.ifname && i.sandbox === req.netns);
    if (!want) throw new CheckError(`Sandbox in prevResult  doesn't match configured netns: ${req.netns}`);
    const link = await getLinkByName(pod, req.ifname);
    if (!link) throw new CheckError(`Cannot find container link ${req.ifname}`);
    await validateIps(pod, req.ifname, link.index, prev.ips ?? []);
    await validateRoutes(pod, prev.routes ?? []);
  } finally {
    pod.close();
  }
}
