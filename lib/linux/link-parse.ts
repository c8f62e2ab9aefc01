// RTM_NEWLINK message -> LinkInfo. Pure, so it is tested without root.
import type { LinkMessage } from 'netlink/dist/rt/structs.js';
import { formatMac } from './mac.ts';

/** IF_OPER_* names as `ip -j link` prints them. */
export type OperState = 'UNKNOWN' | 'NOTPRESENT' | 'DOWN' | 'LOWERLAYERDOWN' | 'TESTING' | 'DORMANT' | 'UP';

const OPER_STATES: readonly OperState[] = ['UNKNOWN', 'NOTPRESENT', 'DOWN', 'LOWERLAYERDOWN', 'TESTING', 'DORMANT', 'UP'];

export interface LinkInfo {
  index: number;
  name: string;
  /** IFF_UP: administratively up. Carrier is operState. */
  up: boolean;
  operState: OperState;
  mtu: number;
  /** 'aa:bb:cc:dd:ee:ff' lower case; '' for links without a hardware address. */
  mac: string;
  /** IFLA_INFO_KIND ('veth', 'bridge', 'ifb'...); absent for physical devices and lo. */
  kind?: string;
  /** IFLA_MASTER: the bridge (or bond) this link is enslaved to. */
  masterIndex?: number;
}

const IFLA_INFO_KIND = 1;
// Attribute type bits above these are NLA_F_NESTED / NLA_F_NET_BYTEORDER.
const NLA_TYPE_MASK = 0x3fff;

/**
 * IFLA_INFO_KIND from the raw IFLA_LINKINFO payload: netlink@0.3.0 hands
 * IFLA_LINKINFO over unparsed, as a Buffer of nested attributes.
 */
export function linkKindFromInfo(info: Uint8Array): string | undefined {
  const buf = Buffer.from(info.buffer, info.byteOffset, info.byteLength);
  for (let off = 0; off + 4 <= buf.length;) {
    const len = buf.readUInt16LE(off);
    const type = buf.readUInt16LE(off + 2) & NLA_TYPE_MASK;
    if (len < 4 || off + len > buf.length) return undefined;
    if (type === IFLA_INFO_KIND) {
      const value = buf.subarray(off + 4, off + len);
      const nul = value.indexOf(0);
      return value.subarray(0, nul < 0 ? value.length : nul).toString('utf8');
    }
    off += (len + 3) & ~3;
  }
  return undefined;
}

export function toLinkInfo(msg: LinkMessage): LinkInfo {
  const { data, attrs } = msg;
  const info: LinkInfo = {
    index: data.index ?? 0,
    name: attrs.ifname ?? '',
    up: data.flags?.up === true,
    operState: OPER_STATES[attrs.operstate ?? 0] ?? 'UNKNOWN',
    mtu: attrs.mtu ?? 0,
    mac: formatMac(attrs.address),
  };
  const kind = attrs.linkinfo && linkKindFromInfo(attrs.linkinfo);
  if (kind) info.kind = kind;
  if (attrs.master) info.masterIndex = attrs.master;
  return info;
}
