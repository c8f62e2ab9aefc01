// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/tap/tap.go):
// the allocation (with an ipam.type) and the tap go; a netns or device already gone is done.
// Unlike the reference, which stops at a failed IPAM DEL, every step runs and failures are
// reported together.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamDel } from '../../lib/ipam/index.ts';
import { deleteLink, getLinkByName, openContainerNetnsIfExists, type Netns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const failures = new Failures();
  let pod: Netns | undefined;
  try {
    if (conf.ipamType !== '') await failures.attempt(() => ipamDel(conf.ipamType, req));
    await failures.attempt(async () => {
      pod = openContainerNetnsIfExists(req.netns);
      const link = pod && (await getLinkByName(pod, req.ifname));
      if (pod && link) await deleteLink(pod, link.index);
    });
  } finally {
    pod?.close();
  }
  failures.throwIfAny();
}
