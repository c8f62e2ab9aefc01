// CHECK (reference cmdCheck and validateCniContainerInterface,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/host-device/host-device.go):
// the IPAM's check, then (unless DPDK) the container's interface, its MAC, addresses and
// prevResult's routes.
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
    if (conf.dpdkMode) return;
    const want = (prev.interfaces ?? []).find((i) => i.name === req.ifname && i.sandbox === req.netns);
    if (!want) throw new CheckError(`Sandbox in prevResult  doesn't match configured netns: ${req.netns}`);
    if (want.name === '') throw new CheckError('Container interface name missing in prevResult: ');
    const link = await getLinkByName(pod, want.name);
    if (!link) throw new CheckError(`Container Interface name in prevResult: ${want.name} not found`);
    if (want.mac && want.mac !== link.mac) throw new CheckError(`Interface ${want.name} Mac ${want.mac} doesn't match container Mac: ${link.mac}`);
    await validateIps(pod, req.ifname, link.index, prev.ips ?? []);
    await validateRoutes(pod, prev.routes ?? []);
  } finally {
    pod.close();
  }
}
