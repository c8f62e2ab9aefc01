// CHECK (reference cmdCheck, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/main.go):
// the VRF exists and the interface is one of its members.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { listLinks, openContainerNetns } from '../../lib/linux/index.ts';
import { NO_PREV_RESULT } from './add.ts';
import { loadConf } from './conf.ts';
import { vrfMembers } from './plan.ts';
import { findVrf, VrfError } from './vrf-link.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  if (!req.prevResult) throw new CniError(ErrorCode.InvalidNetworkConfig, NO_PREV_RESULT);
  const pod = openContainerNetns(req);
  try {
    const vrf = await findVrf(pod, conf.vrfName);
    if (!vrf) throw new VrfError('Link not found');
    if (!vrfMembers(await listLinks(pod), vrf.index).some((l) => l.name === req.ifname)) {
      throw new VrfError(`failed to find ${req.ifname} associated to vrf ${conf.vrfName}`);
    }
  } finally {
    pod.close();
  }
}
