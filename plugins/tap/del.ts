// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/tap/tap.go):
// the allocation (with an ipam.type) and the tap go; a netns or device already gone is done.
// Unlike the reference, which stops at a failed IPAM DEL, every step runs and failures are
// reported together.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { podLinkDel } from '../pod-link-del.ts';
import { loadConf } from './conf.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  // A tap without IPAM (ipam.type empty) has nothing to release.
  await podLinkDel(req, conf.ipamType === '' ? undefined : conf.ipamType);
}
