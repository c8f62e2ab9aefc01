import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { openContainerNetns } from '../../lib/linux/index.ts';
import { withLoopback } from './netns.ts';

export async function cmdCheck(req: CniRequest): Promise<void> {
  await withLoopback(openContainerNetns(req), async (_ns, lo) => {
    if (!lo.up) throw new Error('loopback interface is down');
  });
}
