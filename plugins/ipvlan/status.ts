// STATUS (spec 1.1.0): the IPAM's answer when there is one; the plugin itself has nothing to run
// out of (the reference does not look at the master either).
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamStatus } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdStatus(req: CniRequest): Promise<void> {
  const { ipamType } = loadConf(req);
  if (ipamType !== undefined) await ipamStatus(ipamType, req);
}
