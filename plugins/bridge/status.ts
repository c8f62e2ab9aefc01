// STATUS (reference cmdStatus, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go): the IPAM's answer; L2 mode has nothing to run out of.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamStatus } from '../../lib/ipam/index.ts';
import { loadConf } from './conf.ts';

export async function cmdStatus(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  if (conf.ipamType) await ipamStatus(conf.ipamType, req);
}
