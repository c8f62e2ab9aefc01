// The container's `lo`, shared by every verb; the netns is closed when fn is done.
import { getLinkByName, type LinkInfo, type Netns } from '../../lib/linux/index.ts';

export async function withLoopback<T>(ns: Netns, fn: (ns: Netns, lo: LinkInfo) => Promise<T>): Promise<T> {
  try {
    const lo = await getLinkByName(ns, 'lo');
    if (lo === undefined) throw new Error('failed to find "lo" in the container netns');
    return await fn(ns, lo);
  } finally {
    ns.close();
  }
}
