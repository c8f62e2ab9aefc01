// The DEL of a plugin whose whole trace is one link in the pod and its IPAM allocation (macvlan,
// ipvlan, dummy, tap): the IPAM's DEL (when the config names one), then the link.
import { Failures, type CniRequest } from '../lib/cni-spec/index.ts';
import { ipamDel } from '../lib/ipam/index.ts';
import { deleteLink, getLinkByName, openContainerNetnsIfExists, type Netns } from '../lib/linux/index.ts';

/**
 * Idempotent: a gone netns or link is done. Both steps run and failures are reported together (the
 * reference plugins stop at an IPAM failure and leave the link). It reads nothing but the pod: it
 * must clean up after a master that is gone.
 */
export async function podLinkDel(req: CniRequest, ipamType: string | undefined): Promise<void> {
  const failures = new Failures();
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
