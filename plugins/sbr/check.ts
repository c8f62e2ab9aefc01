// CHECK: the reference's cmdCheck checks nothing and succeeds
// (https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/sbr/main.go). Ours
// only refuses a config its ADD would refuse (divergences.md, sbr).
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { loadConf } from './conf.ts';

export function cmdCheck(req: CniRequest): Promise<void> {
  loadConf(req);
  return Promise.resolve();
}
