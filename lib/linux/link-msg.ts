// RTM_NEWLINK / RTM_SETLINK payloads (struct ifinfomsg + attributes) that netlink@0.3.0
// cannot build: bridge and veth creation, bridge-port options, bridge-port VLANs.
// Pure; the numbers are from include/uapi/linux/{if_link,if_bridge,veth}.h.
import { attrBytes, attrNest, attrString, attrStructNest, attrU16, attrU32, attrU8, encodeAttrs, encodeIfInfoMsg, type Attr } from './nl-codec.ts';

const AF_BRIDGE = 7;
export const IFF_UP = 0x1;
export const IFF_PROMISC = 0x100;

const IFLA_ADDRESS = 1;
const IFLA_IFNAME = 3;
const IFLA_MTU = 4;
const IFLA_MASTER = 10;
const IFLA_LINKINFO = 18;
const IFLA_AF_SPEC = 26;
const IFLA_NET_NS_FD = 28;

const IFLA_INFO_KIND = 1;
const IFLA_INFO_DATA = 2;
const IFLA_INFO_SLAVE_KIND = 4;
const IFLA_INFO_SLAVE_DATA = 5;

const VETH_INFO_PEER = 1;
const IFLA_BR_VLAN_FILTERING = 7;
const IFLA_BRPORT_MODE = 4; // hairpin ("reflective relay")
const IFLA_BRPORT_ISOLATED = 33;

const IFLA_BRIDGE_FLAGS = 0;
const IFLA_BRIDGE_VLAN_INFO = 2;
const BRIDGE_FLAGS_MASTER = 1;

export const BRIDGE_VLAN_INFO_PVID = 0x2;
export const BRIDGE_VLAN_INFO_UNTAGGED = 0x4;
const BRIDGE_VLAN_INFO_RANGE_BEGIN = 0x8;
const BRIDGE_VLAN_INFO_RANGE_END = 0x10;

export interface NewBridge {
  name: string;
  mtu?: number;
  vlanFiltering?: boolean;
}

/** `ip link add <name> [mtu N] type bridge [vlan_filtering 1]` */
export function encodeNewBridge(b: NewBridge): Buffer {
  const data: Attr[] = b.vlanFiltering ? [attrU8(IFLA_BR_VLAN_FILTERING, 1)] : [];
  const info: Attr[] = [attrString(IFLA_INFO_KIND, 'bridge')];
  if (data.length > 0) info.push(attrNest(IFLA_INFO_DATA, data));
  const attrs: Attr[] = [attrString(IFLA_IFNAME, b.name)];
  if (b.mtu) attrs.push(attrU32(IFLA_MTU, b.mtu));
  attrs.push(attrNest(IFLA_LINKINFO, info));
  return Buffer.concat([encodeIfInfoMsg(), encodeAttrs(attrs)]);
}

/** One end of a veth pair. */
export interface VethEnd {
  name: string;
  mtu?: number;
  /** 6 bytes; the kernel picks a random one when absent */
  mac?: Uint8Array;
  /** the netns to create this end in (an open nsfs fd); default: the socket's */
  netnsFd?: number;
  /** enslave to this link index right away (the kernel does it before answering) */
  master?: number;
  up?: boolean;
}

function endAttrs(e: VethEnd): Attr[] {
  const attrs: Attr[] = [attrString(IFLA_IFNAME, e.name)];
  if (e.mtu) attrs.push(attrU32(IFLA_MTU, e.mtu));
  if (e.mac) attrs.push(attrBytes(IFLA_ADDRESS, e.mac));
  if (e.netnsFd !== undefined) attrs.push(attrU32(IFLA_NET_NS_FD, e.netnsFd));
  if (e.master !== undefined) attrs.push(attrU32(IFLA_MASTER, e.master));
  return attrs;
}

const upMsg = (e: VethEnd): Buffer => encodeIfInfoMsg(e.up ? { flags: IFF_UP, change: IFF_UP } : {});

/**
 * Both ends in one RTM_NEWLINK: VETH_INFO_PEER carries the peer's own ifinfomsg and
 * attributes, so each end is named, sized and placed in its netns at creation.
 */
export function encodeNewVeth(main: VethEnd, peer: VethEnd): Buffer {
  const peerAttr = attrStructNest(VETH_INFO_PEER, upMsg(peer), endAttrs(peer));
  const info = attrNest(IFLA_LINKINFO, [attrString(IFLA_INFO_KIND, 'veth'), attrNest(IFLA_INFO_DATA, [peerAttr])]);
  return Buffer.concat([upMsg(main), encodeAttrs([...endAttrs(main), info])]);
}

export interface BridgePortOptions {
  hairpin?: boolean;
  isolated?: boolean;
}

/**
 * RTM_NEWLINK (no NLM_F_CREATE) on an existing bridge port: the kernel hands
 * IFLA_INFO_SLAVE_DATA to the master's slave_changelink. The link must already be enslaved.
 */
export function encodeBridgePortOptions(index: number, o: BridgePortOptions): Buffer {
  const data: Attr[] = [];
  if (o.hairpin !== undefined) data.push(attrU8(IFLA_BRPORT_MODE, o.hairpin ? 1 : 0));
  if (o.isolated !== undefined) data.push(attrU8(IFLA_BRPORT_ISOLATED, o.isolated ? 1 : 0));
  const info = attrNest(IFLA_LINKINFO, [attrString(IFLA_INFO_SLAVE_KIND, 'bridge'), attrNest(IFLA_INFO_SLAVE_DATA, data)]);
  return Buffer.concat([encodeIfInfoMsg({ index }), encodeAttrs([info])]);
}

/** A run of VIDs with the same flags; `last` absent or equal to `vid` for a single VID. */
export interface VlanRun {
  vid: number;
  last?: number;
  pvid?: boolean;
  untagged?: boolean;
}

function vlanInfo(flags: number, vid: number): Attr {
  const b = Buffer.alloc(4);
  b.writeUInt16LE(flags, 0);
  b.writeUInt16LE(vid, 2);
  return { type: IFLA_BRIDGE_VLAN_INFO, payload: b };
}

/**
 * RTM_SETLINK (add) or RTM_DELLINK (remove) with family AF_BRIDGE on a bridge port:
 * IFLA_AF_SPEC holds IFLA_BRIDGE_FLAGS (MASTER: the port's entry in its bridge, not the
 * device's own) and one struct bridge_vlan_info { u16 flags; u16 vid } per VID, or a
 * RANGE_BEGIN/RANGE_END pair per run (the kernel refuses PVID on a range).
 */
export function encodeBridgeVlans(index: number, runs: readonly VlanRun[]): Buffer {
  const spec: Attr[] = [attrU16(IFLA_BRIDGE_FLAGS, BRIDGE_FLAGS_MASTER)];
  for (const r of runs) {
    const flags = (r.pvid ? BRIDGE_VLAN_INFO_PVID : 0) | (r.untagged ? BRIDGE_VLAN_INFO_UNTAGGED : 0);
    const last = r.last ?? r.vid;
    if (last === r.vid) {
      spec.push(vlanInfo(flags, r.vid));
    } else {
      if (r.pvid || last < r.vid) throw new RangeError(`invalid VLAN run ${r.vid}-${last}`);
      spec.push(vlanInfo(flags | BRIDGE_VLAN_INFO_RANGE_BEGIN, r.vid), vlanInfo(flags | BRIDGE_VLAN_INFO_RANGE_END, last));
    }
  }
  return Buffer.concat([encodeIfInfoMsg({ family: AF_BRIDGE, index }), encodeAttrs([attrNest(IFLA_AF_SPEC, spec)])]);
}

const IFLA_LINK = 5;
const IFLA_IFALIAS = 20;
const IFLA_VLAN_ID = 1;

export interface NewVlan {
  name: string;
  /** the master's index, counted in the netns of the socket that sends the request */
  parentIndex: number;
  /** 0…4094 */
  vlanId: number;
  /** 0 or absent: the master's */
  mtu?: number;
  /** create the link straight in this netns (an open nsfs fd); default: the socket's */
  netnsFd?: number;
}

/**
 * `ip link add link <master> name <name> [mtu N] type vlan id <vid>`, with IFLA_NET_NS_FD when
 * the link is to be born in another netns (the reference's netlink.LinkAdd with Namespace set):
 * the kernel resolves IFLA_LINK in the socket's netns and registers the link in the target.
 */
export function encodeNewVlan(v: NewVlan): Buffer {
  if (!Number.isInteger(v.vlanId) || v.vlanId < 0 || v.vlanId > 4094) throw new RangeError(`invalid VLAN ID ${v.vlanId}`);
  const attrs: Attr[] = [];
  if (v.mtu) attrs.push(attrU32(IFLA_MTU, v.mtu));
  attrs.push(attrU32(IFLA_LINK, v.parentIndex), attrString(IFLA_IFNAME, v.name));
  if (v.netnsFd !== undefined) attrs.push(attrU32(IFLA_NET_NS_FD, v.netnsFd));
  attrs.push(attrNest(IFLA_LINKINFO, [attrString(IFLA_INFO_KIND, 'vlan'), attrNest(IFLA_INFO_DATA, [attrU16(IFLA_VLAN_ID, v.vlanId)])]));
  return Buffer.concat([encodeIfInfoMsg(), encodeAttrs(attrs)]);
}

export interface LinkChange {
  /** move the link into this netns (an open nsfs fd) */
  netnsFd?: number;
  /** its new name (in the target netns when it moves) */
  name?: string;
  /** IFLA_IFALIAS; '' removes the alias (a zero-length attribute, as `ip link set … alias ""` sends) */
  alias?: string;
}

/**
 * `ip link set dev <index> [netns <fd>] [name <name>] [alias <alias>]`: RTM_NEWLINK without
 * NLM_F_CREATE on an existing link, as iproute2 sends it. With both a netns and a name the
 * kernel moves the link (under the new name when the old one is taken there) and then renames
 * it inside the target netns.
 */
export function encodeLinkChange(index: number, c: LinkChange): Buffer {
  const attrs: Attr[] = [];
  if (c.netnsFd !== undefined) attrs.push(attrU32(IFLA_NET_NS_FD, c.netnsFd));
  if (c.name !== undefined) attrs.push(attrString(IFLA_IFNAME, c.name));
  // Without a NUL, as iproute2 and the reference's netlink library send it: the kernel stores
  // exactly the attribute's bytes, and none clears the alias.
  if (c.alias !== undefined) attrs.push(attrBytes(IFLA_IFALIAS, Buffer.from(c.alias, 'utf8')));
  return Buffer.concat([encodeIfInfoMsg({ index }), encodeAttrs(attrs)]);
}

const IFLA_MACVLAN_MODE = 1;
const IFLA_MACVLAN_BC_QUEUE_LEN = 7;
const IFLA_IPVLAN_MODE = 1;
const IFLA_IPVLAN_FLAGS = 2;

/** enum macvlan_mode (include/uapi/linux/if_link.h) */
export const MACVLAN_MODE = { private: 1, vepa: 2, bridge: 4, passthru: 8, source: 16 } as const;
export type MacvlanMode = 'private' | 'vepa' | 'bridge' | 'passthru';
/** enum ipvlan_mode */
export const IPVLAN_MODE = { l2: 0, l3: 1, l3s: 2 } as const;
export type IpvlanMode = keyof typeof IPVLAN_MODE;

/** A macvlan or ipvlan link on a parent (lower) device. */
export interface NewLowerLink {
  name: string;
  /** the parent's index, counted in the socket's netns */
  parent: number;
  mtu?: number;
  /** 6 bytes; the kernel picks a random one when absent */
  mac?: Uint8Array;
  /** create it in this netns (an open nsfs fd); default: the socket's */
  netnsFd?: number;
}

function lowerLinkAttrs(l: NewLowerLink, kind: string, data: Attr[]): Attr[] {
  const attrs: Attr[] = [attrString(IFLA_IFNAME, l.name)];
  if (l.mtu) attrs.push(attrU32(IFLA_MTU, l.mtu));
  if (l.mac) attrs.push(attrBytes(IFLA_ADDRESS, l.mac));
  attrs.push(attrU32(IFLA_LINK, l.parent));
  if (l.netnsFd !== undefined) attrs.push(attrU32(IFLA_NET_NS_FD, l.netnsFd));
  attrs.push(attrNest(IFLA_LINKINFO, [attrString(IFLA_INFO_KIND, kind), attrNest(IFLA_INFO_DATA, data)]));
  return attrs;
}

/**
 * `ip link add link <parent> name <name> type macvlan mode <mode> [bcqueuelen N]`. The mode is
 * always sent: the kernel's own default is vepa, the reference's bridge. A kernel older than
 * IFLA_MACVLAN_BC_QUEUE_LEN (5.11) ignores that attribute.
 */
export function encodeNewMacvlan(l: NewLowerLink & { mode: MacvlanMode; bcQueueLen?: number }): Buffer {
  const data: Attr[] = [attrU32(IFLA_MACVLAN_MODE, MACVLAN_MODE[l.mode])];
  if (l.bcQueueLen) data.push(attrU32(IFLA_MACVLAN_BC_QUEUE_LEN, l.bcQueueLen));
  return Buffer.concat([encodeIfInfoMsg(), encodeAttrs(lowerLinkAttrs(l, 'macvlan', data))]);
}

/** `ip link add link <parent> name <name> type ipvlan mode <mode>`: mode and flags (bridge: 0) as u16. */
export function encodeNewIpvlan(l: NewLowerLink & { mode: IpvlanMode }): Buffer {
  const data: Attr[] = [attrU16(IFLA_IPVLAN_MODE, IPVLAN_MODE[l.mode]), attrU16(IFLA_IPVLAN_FLAGS, 0)];
  return Buffer.concat([encodeIfInfoMsg(), encodeAttrs(lowerLinkAttrs(l, 'ipvlan', data))]);
}
