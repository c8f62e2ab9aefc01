// CHECK, as the reference's cmdCheck (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go). In L2 mode (`ipam: {}`) there is no IPAM to ask: the reference
// calls it anyway and fails with "no plugin name provided"; we skip it.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { CheckError } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { realDeps, type BridgeDeps } from './deps.ts';

export async function cmdCheck(req: CniRequest, d: BridgeDeps = realDeps): Promise<void> {
  const conf = loadConf(req);
  const pod = d.netns.container(req);
  const host = d.netns.host();
  try {
    if (conf.ipamType) await d.ipam.check(conf.ipamType, req);
    const prev = req.prevResult;
    if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'Required prevResult missing');
    const ifaces = prev.interfaces ?? [];
    const brWant = ifaces.find((i) => i.name === conf.bridge);
    const contWant = ifaces.find((i) => i.name === req.ifname && i.sandbox === req.netns);
    if (!brWant) throw new CheckError(`CNI created bridge ${conf.bridge} in host namespace was not found`);
    if (!contWant) throw new CheckError(`CNI created interface in container ${req.ifname} not found`);
    const bridge = await d.check.validateBridge(host, brWant, conf.promiscMode);
    const container = await d.check.validateContainerIface(pod, contWant);
    const others = ifaces.filter((i) => i !== brWant && i !== contWant && i.name !== brWant.name && i.name !== contWant.name);
    if (!(await d.check.findHostVeth(host, others, bridge, container))) throw new CheckError(`CNI veth created for bridge ${conf.bridge} was not found`);
    await d.check.validateIps(pod, req.ifname, container.index, prev.ips ?? []);
    await d.check.validateRoutes(pod, prev.routes ?? []);
  } finally {
    pod.close();
    host.close();
  }
}
