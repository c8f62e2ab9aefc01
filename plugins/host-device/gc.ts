// GC (spec 1.1.0): the IPAM's GC when there is an IPAM, so allocations of attachments the runtime
// no longer lists go (a device whose netns is gone cannot be moved back by anyone). The
// reference has no GC (a no-op).
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamGc } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadConf(req, { forDel: true });
  if (conf.ipamType !== '') await ipamGc(conf.ipamType, req);
}
