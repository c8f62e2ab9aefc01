// Dummy links: `ip link add <name> type dummy`, made straight in the netns whose socket sends it
// (the reference's netlink.LinkAdd(&netlink.Dummy{}) inside netns.Do,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/dummy/dummy.go).
import { attrNest, attrString, encodeAttrs, encodeIfInfoMsg } from './nl-codec.ts';
import type { Netns } from './netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL, RTM_NEWLINK, rtnlRequest } from './nl-request.ts';

const IFLA_IFNAME = 3;
const IFLA_LINKINFO = 18;
const IFLA_INFO_KIND = 1;

/** The RTM_NEWLINK payload of `ip link add <name> type dummy`. Pure. */
export function encodeNewDummy(name: string): Buffer {
  return Buffer.concat([encodeIfInfoMsg(), encodeAttrs([attrString(IFLA_IFNAME, name), attrNest(IFLA_LINKINFO, [attrString(IFLA_INFO_KIND, 'dummy')])])]);
}

/** NLM_F_EXCL: an existing link of that name is an error (EEXIST), never taken over. */
export async function createDummy(ns: Netns, name: string): Promise<void> {
  await rtnlRequest(ns, RTM_NEWLINK, encodeNewDummy(name), NLM_F_CREATE | NLM_F_EXCL);
}
