// CHECK (reference cmdCheck, https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/main/ptp/ptp.go):
// the IPAM's check, then the container interface, its addresses and prevResult's routes.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamCheck } from '../../lib/ipam/index.ts';
import { openContainerNetns, validateContainerIface, validateIps, validateRoutes } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const pod = openContainerNetns(req);
  try {
    await ipamCheck(conf.ipamType, req);
    const prev = req.prevResult;
    if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'ptp: Required prevResult missing');
    const want = (prev.interfaces ?? []).find((i) => i.name === req.ifname && i.sandbox === req.netns);
    if (!want) throw new Error(`Sandbox in prevResult  doesn't match configured netns: ${req.netns}`);
    const link = await validateContainerIface(pod, want);
    await validateIps(pod, req.ifname, link.index, prev.ips ?? []);
    await validateRoutes(pod, prev.routes ?? []);
  } finally {
    pod.close();
  }
}
