// CHECK: the reference's cmdCheck checks nothing and succeeds
// (https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/sbr/main.go). Ours
// checks no rule or route either, but refuses what its ADD would refuse before touching
// anything: a bad config, no prevResult, a CNI_NETNS that is no netns (divergences.md, sbr).
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { openContainerNetns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export function cmdCheck(req: CniRequest): Promise<void> {
  loadConf(req);
  if (!req.prevResult) throw new CniError(ErrorCode.InvalidNetworkConfig, 'Required prevResult missing');
  openContainerNetns(req).close();
  return Promise.resolve();
}
