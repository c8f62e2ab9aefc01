import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { openContainerNetnsIfExists, setLinkDown } from '../../lib/linux/index.ts';
import { withLoopback } from './netns.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  // DEL must succeed when the container is already gone (spec: DEL is best effort).
  const ns = openContainerNetnsIfExists(req.netns);
  if (ns === undefined) return;
  await withLoopback(ns, (ns, lo) => setLinkDown(ns, lo.index));
}
