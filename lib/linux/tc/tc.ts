// Traffic control through our own codec (tc-msg.ts, ifb-msg.ts): qdiscs, the redirect filter,
// ifb devices. No `tc` binary at run time.
import { isNetlinkError, nl } from '../netlink-error.ts';
import type { Netns } from '../netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL, RTM_NEWLINK, rtnlRequest } from '../nl-request.ts';
import { encodeNewIfb, type NewIfb } from './ifb-msg.ts';
import { toQdiscInfo, type QdiscInfo, type RawQdisc } from './qdisc-parse.ts';
import {
  encodeDelTbfQdisc,
  encodeGetQdisc,
  encodeIngressQdisc,
  encodeRedirectFilter,
  encodeTbfQdisc,
  RTM_DELQDISC,
  RTM_GETQDISC,
  RTM_NEWQDISC,
  RTM_NEWTFILTER,
  type TbfQopt,
} from './tc-msg.ts';

const CREATE = NLM_F_CREATE | NLM_F_EXCL;
const NLM_F_ECHO = 0x8;

// A qdisc or link that is not there: ENOENT (no such qdisc), ENODEV (no such link), EINVAL (the
// qdisc there is of another kind or handle, or the device's default that cannot be deleted).
const isGone = (err: unknown) => isNetlinkError(err, 'ENOENT', 'ENODEV', 'EINVAL');

/**
 * The qdisc of a link at `parent` (TC_H_ROOT, TC_H_INGRESS), or undefined when there is none.
 * One answer for one link, not a dump of every qdisc on the node.
 */
export async function getQdisc(ns: Netns, ifindex: number, parent: number): Promise<QdiscInfo | undefined> {
  try {
    // NLM_F_ECHO: this kernel (6.18) answers a plain get with an ACK alone; the qdisc comes back
    // only as the echo of the notification.
    const msgs = await nl('RTM_GETQDISC', () => ns.rtnl.request(RTM_GETQDISC, encodeGetQdisc(ifindex, parent), { flags: NLM_F_ECHO }));
    const m = msgs.find((x) => (x as { kind?: string }).kind === 'tc') ?? msgs[0];
    return m && toQdiscInfo(m as unknown as RawQdisc);
  } catch (err) {
    if (isGone(err)) return undefined;
    throw err;
  }
}

/** tbf as the root qdisc (handle 1:) of a link; EEXIST when the link already has one. */
export async function addTbf(ns: Netns, ifindex: number, q: TbfQopt): Promise<void> {
  await rtnlRequest(ns, RTM_NEWQDISC, encodeTbfQdisc(ifindex, q), CREATE);
}

/** The ingress qdisc (ffff:) of a link. */
export async function addIngressQdisc(ns: Netns, ifindex: number): Promise<void> {
  await rtnlRequest(ns, RTM_NEWQDISC, encodeIngressQdisc(ifindex), CREATE);
}

/** Everything arriving on `ifindex` is redirected to the egress of `target` (u32 match-all + mirred). */
export async function addRedirectFilter(ns: Netns, ifindex: number, target: number): Promise<void> {
  await rtnlRequest(ns, RTM_NEWTFILTER, encodeRedirectFilter(ifindex, target), CREATE);
}

/** Deletes the root qdisc of a link if it is our tbf (1:); missing or another qdisc: done. */
export async function deleteTbfQdisc(ns: Netns, ifindex: number): Promise<void> {
  try {
    await rtnlRequest(ns, RTM_DELQDISC, encodeDelTbfQdisc(ifindex));
  } catch (err) {
    if (!isGone(err)) throw err;
  }
}

/** Deletes the ingress qdisc of a link with its filters; missing is done. */
export async function deleteIngressQdisc(ns: Netns, ifindex: number): Promise<void> {
  try {
    await rtnlRequest(ns, RTM_DELQDISC, encodeIngressQdisc(ifindex));
  } catch (err) {
    if (!isGone(err)) throw err;
  }
}

/** An ifb device, created up. EEXIST when the name is taken. */
export async function createIfb(ns: Netns, l: NewIfb): Promise<void> {
  await rtnlRequest(ns, RTM_NEWLINK, encodeNewIfb(l), CREATE);
}
