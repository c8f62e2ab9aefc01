// STATUS (spec 1.1.0): the IPAM's answer; the plugin itself has nothing to run out of.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamStatus } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdStatus(req: CniRequest): Promise<void> {
  await ipamStatus(loadConf(req).ipamType, req);
}
