// skel's sanity check that CNI_NETNS is not the netns the plugin itself runs in (configuring
// "the container" would then reconfigure the host). Plain stat calls, no Linux API.
import { stat } from 'node:fs/promises';
import { CniError, ErrorCode } from './errors.ts';

const SELF = '/proc/self/ns/net';

async function identity(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path, { bigint: true });
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
  const [theirs, ours] = await Promise.all([identity(netns), identity(self)]);
  if (theirs !== undefined && theirs === ours) {
    throw new CniError(ErrorCode.InvalidNetNS, "plugin's netns and netns from CNI_NETNS should not be the same");
  }
}
