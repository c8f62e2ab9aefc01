// GC (spec 1.1.0): the IPAM's allocations of attachments the runtime no longer lists. The links
// live in pod netns and go with them. The reference has no GC.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamGc } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  const { ipamType } = loadConf(req);
  if (ipamType !== undefined) await ipamGc(ipamType, req);
}
