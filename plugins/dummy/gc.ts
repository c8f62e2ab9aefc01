// GC (spec 1.1.0): the IPAM's GC, which frees allocations of attachments the runtime no longer
// lists. The reference has no GC (a no-op); the links go with their netns, so nothing else leaks.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamGc } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  await ipamGc(loadConf(req).ipamType, req);
}
