// CHECK (reference cmdCheck, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/ipvlan/ipvlan.go):
// the master when the config names one, the IPAM's check, then the container interface (an
// ipvlan of the configured mode, MTU and prevResult's MAC), its addresses and prevResult's routes.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamCheck } from '../../lib/ipam/index.ts';
import { Netns, openContainerNetns, resolveParent, validateIps, validateLowerLink, validateRoutes } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req, { forAdd: true });
  const pod = openContainerNetns(req);
  const node = Netns.host();
  try {
    // Without `master` the reference looks up a link named "" and always fails; a chained
    // ipvlan's master was prevResult's, which CHECK no longer has: nothing to look up.
    if (conf.master) await resolveParent(node, pod, { master: conf.master, inPod: conf.linkInContainer, mtu: conf.mtu });
    if (conf.ipamType !== undefined) await ipamCheck(conf.ipamType, req);
    const prev = req.prevResult;
    if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'Required prevResult missing');
    const have = (prev.interfaces ?? []).find((i) => i.name === req.ifname && i.sandbox === req.netns);
    if (!have) throw new Error(`Sandbox in prevResult  doesn't match configured netns: ${req.netns}`);
    const link = await validateLowerLink(pod, have, { kind: 'ipvlan', mode: conf.mode, ...(conf.mtu && { mtu: conf.mtu }) });
    await validateIps(pod, req.ifname, link.index, prev.ips ?? []);
    await validateRoutes(pod, prev.routes ?? []);
  } finally {
    pod.close();
    node.close();
  }
}
