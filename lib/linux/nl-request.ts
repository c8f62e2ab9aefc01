// Raw rtnetlink requests for payloads built by link-msg.ts/nl-codec.ts, sent on a namespace's
// socket with the request's errors mapped to NetlinkError.
import { nl } from './netlink-error.ts';
import type { Netns } from './netns.ts';

export const RTM_NEWLINK = 16;
export const RTM_DELLINK = 17;
export const RTM_SETLINK = 19;

// include/uapi/linux/netlink.h, for "new" requests.
export const NLM_F_REPLACE = 0x100;
export const NLM_F_EXCL = 0x200;
export const NLM_F_CREATE = 0x400;
export const NLM_F_APPEND = 0x800;

const OP_NAMES: Readonly<Record<number, string>> = { [RTM_NEWLINK]: 'RTM_NEWLINK', [RTM_DELLINK]: 'RTM_DELLINK', [RTM_SETLINK]: 'RTM_SETLINK' };

/** Sends one request (REQUEST|ACK plus `flags`) and waits for the kernel's answer. */
export async function rtnlRequest(ns: Netns, type: number, payload: Buffer, flags = 0): Promise<void> {
  await nl(OP_NAMES[type] ?? `RTM_${type}`, () => ns.rtnl.request(type, payload, { flags }));
}
