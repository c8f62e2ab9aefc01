import { CniError, ErrorCode, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { listAddresses, openContainerNetns, setLinkUp } from '../../lib/linux/index.ts';
import { withLoopback } from './netns.ts';
import { findForeignAddress, planLoopbackResult } from './result.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  return withLoopback(openContainerNetns(req), async (ns, lo) => {
    await setLinkUp(ns, lo.index);
    const addrs = await listAddresses(ns, { index: lo.index });
    const foreign = findForeignAddress(addrs);
    if (foreign !== undefined) {
      throw new CniError(ErrorCode.Internal, 'loopback interface found with non-loopback address', `${foreign.address}/${foreign.prefixLen}`);
    }
    // A chained loopback changes nothing, so it passes the previous result on.
    return req.prevResult ?? planLoopbackResult(req.cniVersion, req.netns, addrs);
  });
}
