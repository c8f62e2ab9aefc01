// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/dummy/dummy.go):
// the allocation and the link go; a netns or link already gone is done. Unlike the reference,
// which stops at a failed IPAM DEL, every step runs and failures are reported together.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { podLinkDel } from '../pod-link-del.ts';
import { loadConf } from './conf.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  await podLinkDel(req, loadConf(req).ipamType);
}
