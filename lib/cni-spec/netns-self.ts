// skel's sanity check that CNI_NETNS is not the netns the plugin itself runs in (configuring
// "the container" would then reconfigure the host). Plain stat calls, no Linux API.
import { statSync } from 'node:fs';
import { CniError, ErrorCode } from './errors.ts';

const SELF = '/proc/self/ns/net';

// Synchronous: two stat calls, where node:fs/promises would cost more to load than they take.
function identity(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * Throws code 8 when `netns` names our own network namespace. An empty or missing path
 * passes: DEL may come after the netns is gone, and ADD reports a bad path itself.
 */
export async function assertForeignNetns(netns: string, self = SELF): Promise<void> {
  if (netns === '') return;
  const theirs = identity(netns);
  const ours = identity(self);
  if (theirs !== undefined && theirs === ours) {
    throw new CniError(ErrorCode.InvalidNetNS, "plugin's netns and netns from CNI_NETNS should not be the same");
  }
}
