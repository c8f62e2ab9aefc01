// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/ipvlan/ipvlan.go):
// the IPAM's DEL, then the ipvlan in the pod, as macvlan's DEL (lowerLinkDel says how it differs
// from the reference's).
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { lowerLinkDel } from '../lower-link.ts';
import { loadConf } from './conf.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  await lowerLinkDel(req, conf.ipamType);
}
