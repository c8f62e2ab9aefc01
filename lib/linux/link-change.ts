// Links made or moved with our own encoders (link-msg.ts): a vlan on a master, and the moves,
// renames and aliases host-device does (netlink@0.3.0 writes IFLA_IFALIAS with a NUL and cannot
// send the empty one that clears it).
import { encodeLinkChange, encodeNewVlan, type LinkChange, type NewVlan } from './link-msg.ts';
import type { Netns } from './netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL, RTM_NEWLINK, rtnlRequest } from './nl-request.ts';

export type { LinkChange, NewVlan } from './link-msg.ts';

/** Creates the vlan from `ns`'s socket (the master's netns); EEXIST when the name is taken where it is born. */
export async function createVlan(ns: Netns, v: NewVlan): Promise<void> {
  await rtnlRequest(ns, RTM_NEWLINK, encodeNewVlan(v), NLM_F_CREATE | NLM_F_EXCL);
}

/** Moves, renames or re-aliases the link `index` of `ns`, in one request. */
export async function changeLink(ns: Netns, index: number, c: LinkChange): Promise<void> {
  await rtnlRequest(ns, RTM_NEWLINK, encodeLinkChange(index, c));
}
