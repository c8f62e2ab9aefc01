// STATUS (spec 1.1.0): the IPAM's answer when there is an IPAM; an L2-only tap is always ready.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamStatus } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdStatus(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  if (conf.ipamType !== '') await ipamStatus(conf.ipamType, req);
}
