// VRF links: `ip link add <name> type vrf table <id>` (the reference's netlink.LinkAdd(&netlink.Vrf{})
// in createVRF, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/vrf.go),
// and the table a VRF link routes through, read back from IFLA_INFO_DATA.
import type { LinkDetail } from './link-detail.ts';
import type { Netns } from './netns.ts';
import { attrBytes, attrNest, attrString, attrU32, encodeAttrs, encodeIfInfoMsg } from './nl-codec.ts';
import { NLM_F_CREATE, NLM_F_EXCL, RTM_NEWLINK, rtnlRequest } from './nl-request.ts';

const IFLA_IFNAME = 3;
const IFLA_LINKINFO = 18;
const IFLA_INFO_KIND = 1;
const IFLA_INFO_DATA = 2;
// include/uapi/linux/if_link.h: enum { IFLA_VRF_UNSPEC, IFLA_VRF_TABLE, ... }, a u32
const IFLA_VRF_TABLE = 1;

/**
 * The RTM_NEWLINK payload of `ip link add <name> type vrf table <table>`, byte for byte as iproute2
 * sends it: IFLA_INFO_KIND without a NUL (the kernel compares it with nla_strcmp, which takes both).
 * Pure.
 */
export function encodeNewVrf(name: string, table: number): Buffer {
  const info = attrNest(IFLA_LINKINFO, [attrBytes(IFLA_INFO_KIND, Buffer.from('vrf')), attrNest(IFLA_INFO_DATA, [attrU32(IFLA_VRF_TABLE, table)])]);
  return Buffer.concat([encodeIfInfoMsg(), encodeAttrs([attrString(IFLA_IFNAME, name), info])]);
}

/** NLM_F_EXCL: a link of that name made meanwhile is an error (EEXIST), never taken over. */
export async function createVrf(ns: Netns, name: string, table: number): Promise<void> {
  await rtnlRequest(ns, RTM_NEWLINK, encodeNewVrf(name, table), NLM_F_CREATE | NLM_F_EXCL);
}

/** A VRF link's routing table (IFLA_VRF_TABLE); undefined for any other kind. */
export function vrfTableOf(d: LinkDetail): number | undefined {
  if (d.kind !== 'vrf') return undefined;
  return d.infoData.find((a) => a.type === IFLA_VRF_TABLE)?.value.readUInt32LE(0);
}
