// Traffic control through our own codec (tc-msg.ts, ifb-msg.ts): qdiscs, the redirect filter,
// ifb devices. No `tc` binary at run time.
import { isNetlinkError, nl } from '../netlink-error.ts';
import type { Netns } from '../netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL, RTM_NEWLINK, rtnlRequest } from '../nl-request.ts';
import { encodeNewIfb, type NewIfb } from './ifb-msg.ts';
import { toQdiscInfo, type QdiscInfo, type RawQdisc } from './qdisc-parse.ts';
import {
  encodeDelRootQdisc,
  encodeIngressQdisc,
  encodeRedirectFilter,
  encodeTbfQdisc,
  RTM_DELQDISC,
  RTM_NEWQDISC,
  RTM_NEWTFILTER,
  type TbfQopt,
} from './tc-msg.ts';

const CREATE = NLM_F_CREATE | NLM_F_EXCL;

/** Every qdisc of the namespace, or only those of one link. */
export async function listQdiscs(ns: Netns, ifindex?: number): Promise<QdiscInfo[]> {
  const msgs = await nl('RTM_GETQDISC', ns.rtnl.getQdiscs());
  const all = msgs.map((m) => toQdiscInfo(m as RawQdisc));
  return ifindex === undefined ? all : all.filter((q) => q.ifindex === ifindex);
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

// A qdisc or link that is already gone: ENOENT (no such qdisc), ENODEV/EINVAL (no such link,
// or a root that is the device's default qdisc and so cannot be deleted).
const isGone = (err: unknown) => isNetlinkError(err, 'ENOENT', 'ENODEV', 'EINVAL');

/** Deletes the root qdisc of a link (its filters and classes go with it); missing is done. */
export async function deleteRootQdisc(ns: Netns, ifindex: number): Promise<void> {
  try {
    await rtnlRequest(ns, RTM_DELQDISC, encodeDelRootQdisc(ifindex));
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
