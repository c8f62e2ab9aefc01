// More of a link than LinkInfo: promiscuity, the veth peer index, and the kind-specific
// data inside IFLA_LINKINFO (bridge options, bridge-port options) that netlink@0.3.0 leaves raw.
import type { LinkMessage } from 'netlink/dist/rt/structs.js';
import { toLinkInfo, type LinkInfo } from './link-parse.ts';
import { getLinkMessageByName } from './link.ts';
import { nl } from './netlink-error.ts';
import type { Netns } from './netns.ts';
import { attrText, decodeAttrs, findAttr, type RawAttr } from './nl-codec.ts';

const IFLA_INFO_DATA = 2;
const IFLA_INFO_SLAVE_KIND = 4;
const IFLA_INFO_SLAVE_DATA = 5;
const IFLA_BR_VLAN_FILTERING = 7;
const IFLA_BRPORT_MODE = 4;
const IFLA_BRPORT_ISOLATED = 33;

export interface LinkDetail extends LinkInfo {
  /** IFF_PROMISC */
  promisc: boolean;
  /** IFF_ALLMULTI */
  allmulti: boolean;
  /** IFLA_TXQLEN */
  txqlen: number;
  /** IFLA_LINK: a veth's peer index, counted in the peer's netns */
  peerIndex?: number;
  /** IFLA_INFO_DATA of the link's own kind */
  infoData: RawAttr[];
  /** IFLA_INFO_SLAVE_KIND: 'bridge' for a bridge port */
  slaveKind?: string;
  slaveData: RawAttr[];
  /** IFLA_IFALIAS; absent when unset */
  alias?: string;
}

export function toLinkDetail(msg: LinkMessage): LinkDetail {
  const info = msg.attrs.linkinfo;
  const data = info && findAttr(info, IFLA_INFO_DATA);
  const slaveKind = info && findAttr(info, IFLA_INFO_SLAVE_KIND);
  const slaveData = info && findAttr(info, IFLA_INFO_SLAVE_DATA);
  const link = msg.attrs.link;
  const d: LinkDetail = {
    ...toLinkInfo(msg),
    promisc: msg.data.flags?.promisc === true,
    allmulti: msg.data.flags?.allmulti === true,
    txqlen: msg.attrs.txqlen ?? 0,
    infoData: data ? decodeAttrs(data) : [],
    slaveData: slaveData ? decodeAttrs(slaveData) : [],
  };
  if (link && link.length >= 4) d.peerIndex = link.readUInt32LE(0);
  if (slaveKind) d.slaveKind = attrText(slaveKind);
  if (msg.attrs.ifalias) d.alias = msg.attrs.ifalias;
  return d;
}

export async function getLinkDetail(ns: Netns, name: string): Promise<LinkDetail | undefined> {
  const msg = await getLinkMessageByName(ns, name);
  return msg && toLinkDetail(msg);
}

/** Every link of the namespace, in detail (host-device looks links up by alias). */
export async function listLinkDetails(ns: Netns): Promise<LinkDetail[]> {
  const msgs = await nl('RTM_GETLINK', () => ns.rtnl.getLinks());
  return msgs.map(toLinkDetail);
}

const IFLA_VLAN_ID = 1;

/** A vlan link's VLAN ID (IFLA_VLAN_ID); undefined for any other kind. */
export function vlanIdOf(d: LinkDetail): number | undefined {
  if (d.kind !== 'vlan') return undefined;
  return d.infoData.find((a) => a.type === IFLA_VLAN_ID)?.value.readUInt16LE(0);
}

const u8 = (attrs: readonly RawAttr[], type: number): number | undefined => attrs.find((a) => a.type === type)?.value.readUInt8(0);

/** vlan_filtering of a bridge; undefined for anything else. */
export function bridgeVlanFiltering(d: LinkDetail): boolean | undefined {
  if (d.kind !== 'bridge') return undefined;
  return u8(d.infoData, IFLA_BR_VLAN_FILTERING) === 1;
}

/** hairpin and isolated of a bridge port; undefined when the link is no bridge port. */
export function bridgePortFlags(d: LinkDetail): { hairpin: boolean; isolated: boolean } | undefined {
  if (d.slaveKind !== 'bridge') return undefined;
  return { hairpin: u8(d.slaveData, IFLA_BRPORT_MODE) === 1, isolated: u8(d.slaveData, IFLA_BRPORT_ISOLATED) === 1 };
}

const IFLA_MACVLAN_MODE = 1;
const IFLA_MACVLAN_BC_QUEUE_LEN = 7;
const IFLA_IPVLAN_MODE = 1;
const MACVLAN_MODE_NAMES: Readonly<Record<number, string>> = { 1: 'private', 2: 'vepa', 4: 'bridge', 8: 'passthru', 16: 'source' };
const IPVLAN_MODE_NAMES: readonly string[] = ['l2', 'l3', 'l3s'];

const u32 = (attrs: readonly RawAttr[], type: number): number | undefined => {
  const v = attrs.find((a) => a.type === type)?.value;
  return v && v.length >= 4 ? v.readUInt32LE(0) : undefined;
};

/** A macvlan's mode ('bridge', 'private', …, or 'mode N' for one we do not know); undefined for anything else. */
export function macvlanMode(d: LinkDetail): string | undefined {
  if (d.kind !== 'macvlan') return undefined;
  const m = u32(d.infoData, IFLA_MACVLAN_MODE) ?? 0;
  return MACVLAN_MODE_NAMES[m] ?? `mode ${m}`;
}

/** A macvlan's broadcast queue length; undefined when the kernel does not report one. */
export function macvlanBcQueueLen(d: LinkDetail): number | undefined {
  return d.kind === 'macvlan' ? u32(d.infoData, IFLA_MACVLAN_BC_QUEUE_LEN) : undefined;
}

/** An ipvlan's mode ('l2', 'l3', 'l3s'); undefined for anything else. */
export function ipvlanMode(d: LinkDetail): string | undefined {
  if (d.kind !== 'ipvlan') return undefined;
  const v = d.infoData.find((a) => a.type === IFLA_IPVLAN_MODE)?.value;
  const m = v && v.length >= 2 ? v.readUInt16LE(0) : 0;
  return IPVLAN_MODE_NAMES[m] ?? `mode ${m}`;
}
