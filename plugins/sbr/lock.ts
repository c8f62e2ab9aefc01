// The reference serialises its calls on one namespace with a flock on the netns file itself
// (withLockAndNetNS); taking the same lock keeps ours and the reference's calls from interleaving.
import { closeSync, constants, openSync } from 'node:fs';
import { flock, LOCK_EX } from '../../lib/linux/index.ts';

export async function withNetnsLock<T>(netnsPath: string, fn: () => Promise<T>): Promise<T> {
  const fd = openSync(netnsPath, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    flock(fd, LOCK_EX);
    return await fn();
  } finally {
    closeSync(fd);
  }
}
