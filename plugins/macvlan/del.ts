// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/macvlan/macvlan.go):
// the IPAM's DEL, then the macvlan in the pod. Idempotent: a gone netns or link is done. Both
// steps run and failures are reported together (the reference stops at an IPAM failure and
// leaves the link). DEL reads no master: it must clean up after a master that is gone.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamDel } from '../../lib/ipam/index.ts';
import { deleteLink, getLinkByName, openContainerNetnsIfExists, type Netns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const failures = new Failures();
  const ipamType = conf.ipamType;
  if (ipamType !== undefined) await failures.attempt(() => ipamDel(ipamType, req));
  let pod: Netns | undefined;
  try {
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
