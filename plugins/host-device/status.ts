// STATUS (spec 1.1.0): the IPAM's answer when there is an IPAM, as the reference gives it.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamStatus } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdStatus(req: CniRequest): Promise<void> {
  const conf = loadConf(req, { forDel: true });
  if (conf.ipamType !== '') await ipamStatus(conf.ipamType, req);
}
