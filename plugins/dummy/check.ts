// CHECK (reference cmdCheck and validateCniContainerInterface,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/dummy/dummy.go): the
// IPAM's check, then prevResult's interface (present, a dummy, its MAC, up) and its addresses.
// Routes are not checked, as in the reference.
import { CniError, ErrorCode, type CniRequest, type Interface } from '../../lib/cni-spec/index.ts';
import { ipamCheck } from '../../lib/ipam/index.ts';
import { CheckError, getLinkDetail, openContainerNetns, validateIps, type LinkDetail, type Netns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const pod = openContainerNetns(req);
  try {
    await ipamCheck(conf.ipamType, req);
    const prev = req.prevResult;
    if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'dummy: Required prevResult missing');
    const want = (prev.interfaces ?? []).find((i) => i.name === req.ifname && i.sandbox === req.netns);
    if (!want) throw new CheckError(`Sandbox in prevResult  doesn't match configured netns: ${req.netns}`);
    const link = await validateDummy(pod, want);
    await validateIps(pod, req.ifname, link.index, prev.ips ?? []);
  } finally {
    pod.close();
  }
}

async function validateDummy(pod: Netns, want: Interface): Promise<LinkDetail> {
  const link = await getLinkDetail(pod, want.name);
  if (!link) throw new CheckError(`Container Interface name in prevResult: ${want.name} not found`);
  if (link.kind !== 'dummy') throw new CheckError(`Error: Container interface ${want.name} not of type dummy`);
  if (want.mac && want.mac !== link.mac) throw new CheckError(`Interface ${want.name} Mac ${want.mac} doesn't match container Mac: ${link.mac}`);
  if (!link.up) throw new CheckError(`Interface ${want.name} is down`);
  return link;
}
