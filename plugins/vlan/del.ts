// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/vlan/vlan.go):
// the allocation, then the container's link. Both steps run and a missing netns or link is
// done; unlike the reference, the master is not looked up, so DEL works after it is gone.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamDel } from '../../lib/ipam/index.ts';
import { deleteLink, getLinkByName, openContainerNetnsIfExists } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const failures = new Failures();
  await failures.attempt(() => ipamDel(conf.ipamType, req));
  await failures.attempt(async () => {
    const pod = openContainerNetnsIfExists(req.netns);
    if (!pod) return;
    try {
      const link = await getLinkByName(pod, req.ifname);
      if (link) await deleteLink(pod, link.index);
    } finally {
      pod.close();
    }
  });
  failures.throwIfAny();
}
