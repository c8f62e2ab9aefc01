// Links of a namespace, through its rtnetlink socket.
import type { LinkMessage } from 'netlink/dist/rt/structs.js';
import { isNetlinkError, nl } from './netlink-error.ts';
import { toLinkInfo, type LinkInfo } from './link-parse.ts';
import type { Netns } from './netns.ts';

export type { LinkInfo, OperState } from './link-parse.ts';

// IFNAMSIZ - 1: the kernel answers ERANGE to a longer name, which for a
// lookup simply means "no such link".
const MAX_IFNAME_BYTES = 15;

/** The kernel's message about the link called `name`, or undefined when there is none. */
export async function getLinkMessageByName(ns: Netns, name: string): Promise<LinkMessage | undefined> {
  if (name === '' || Buffer.byteLength(name) > MAX_IFNAME_BYTES) return undefined;
  try {
    const [msg] = await nl('RTM_GETLINK', () => ns.rtnl.getLink({}, { ifname: name }));
    return msg;
  } catch (err) {
    if (isNetlinkError(err, 'ENODEV')) return undefined;
    throw err;
  }
}

export async function getLinkByName(ns: Netns, name: string): Promise<LinkInfo | undefined> {
  const msg = await getLinkMessageByName(ns, name);
  return msg && toLinkInfo(msg);
}

export async function getLinkByIndex(ns: Netns, index: number): Promise<LinkInfo | undefined> {
  try {
    const [msg] = await nl('RTM_GETLINK', () => ns.rtnl.getLink({ index }));
    return msg && toLinkInfo(msg);
  } catch (err) {
    if (isNetlinkError(err, 'ENODEV')) return undefined;
    throw err;
  }
}

export async function listLinks(ns: Netns): Promise<LinkInfo[]> {
  const msgs = await nl('RTM_GETLINK', () => ns.rtnl.getLinks());
  return msgs.map(toLinkInfo);
}

export async function setLinkUp(ns: Netns, index: number): Promise<void> {
  await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index, flags: { up: true }, change: { up: true } }));
}

export async function setLinkDown(ns: Netns, index: number): Promise<void> {
  await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index, flags: {}, change: { up: true } }));
}

export async function setLinkMtu(ns: Netns, index: number, mtu: number): Promise<void> {
  await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index }, { mtu }));
}

/** Deleting a link that is already gone succeeds: DEL must be idempotent. */
export async function deleteLink(ns: Netns, index: number): Promise<void> {
  try {
    await nl('RTM_DELLINK', () => ns.rtnl.delLink({ index }));
  } catch (err) {
    if (!isNetlinkError(err, 'ENODEV')) throw err;
  }
}
