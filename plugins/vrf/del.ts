// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/main.go):
// the interface leaves the VRF, and the VRF goes once no link is left in it. A netns or VRF
// already gone is done. Unlike the reference, an interface already gone is done too (the
// reference fails "resetMaster: could not get link by name"), and an interface enslaved to
// something else is left alone (the reference releases it from whatever master it has).
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { deleteLink, getLinkByName, listLinks, openContainerNetnsIfExists, setLinkMaster, type Netns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { vrfMembers } from './plan.ts';
import { findVrf, VrfError } from './vrf-link.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const pod = openContainerNetnsIfExists(req.netns);
  if (!pod) return;
  try {
    await release(pod, conf.vrfName, req.ifname);
  } finally {
    pod.close();
  }
}

async function release(pod: Netns, vrfName: string, ifname: string): Promise<void> {
  const vrf = await findVrf(pod, vrfName);
  if (!vrf) return;
  const link = await getLinkByName(pod, ifname);
  if (link && link.masterIndex === vrf.index) {
    try {
      await setLinkMaster(pod, link.index, 0);
    } catch (err) {
      throw new VrfError(`resetMaster: could reset master to ${ifname}: ${(err as Error).message}`, { cause: err });
    }
  }
  if (vrfMembers(await listLinks(pod), vrf.index).length === 0) await deleteLink(pod, vrf.index);
}
