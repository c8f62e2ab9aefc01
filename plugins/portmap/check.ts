// CHECK (reference: cmdCheck in https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/meta/portmap/main.go): every mapping's rules, for the address families the container has
// (the Go v1.1.1 plugin also demands IPv6 rules of an IPv4-only pod and fails).
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { checkPortmap } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  // The reference's message; its code is 999, ours 7 as for ADD (docs/divergences.md).
  if (req.prevResult === undefined) throw new CniError(ErrorCode.InvalidNetworkConfig, 'Required prevResult missing');
  if (conf.target.mappings.length === 0 || conf.addrs.length === 0) return;
  await checkPortmap(conf.backend(), conf.target, conf.addrs);
}
