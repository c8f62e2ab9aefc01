// GC (spec 1.1.0): the IPAM's GC when there is an IPAM, which frees allocations of attachments
// the runtime no longer lists. The reference has no GC (a no-op); the taps go with their netns.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamGc } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  if (conf.ipamType !== '') await ipamGc(conf.ipamType, req);
}
