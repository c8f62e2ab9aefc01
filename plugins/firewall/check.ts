// CHECK (reference: cmdCheck in https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/firewall.go):
// every rule ADD would write must be there. Unlike the reference it creates nothing (its CHECK
// creates the chains it looks for) and it checks the same-bridge rules too.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { checkFirewall } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  if (req.prevResult === undefined) throw new CniError(ErrorCode.InvalidNetworkConfig, 'missing prevResult from earlier plugin');
  await checkFirewall(await conf.backend(), conf.target);
}
