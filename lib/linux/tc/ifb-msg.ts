// RTM_NEWLINK for an ifb device (drivers/net/ifb.c): the bandwidth plugin's egress shaper.
// Pure; checked byte for byte against `ip link add … type ifb` in tc-msg.test.ts.
import { attrBytes, attrNest, attrString, attrU32, encodeAttrs, encodeIfInfoMsg } from '../nl-codec.ts';

const IFF_UP = 0x1;
const IFLA_IFNAME = 3;
const IFLA_MTU = 4;
const IFLA_TXQLEN = 13;
const IFLA_LINKINFO = 18;
const IFLA_INFO_KIND = 1;

export interface NewIfb {
  name: string;
  mtu: number;
  /** the transmit queue length; unset: the kernel's default */
  txqlen?: number;
}

/** `ip link add <name> mtu M txqueuelen Q up type ifb`: created up, in one request. */
export function encodeNewIfb(l: NewIfb): Buffer {
  const attrs = [attrU32(IFLA_MTU, l.mtu)];
  if (l.txqlen !== undefined) attrs.push(attrU32(IFLA_TXQLEN, l.txqlen));
  // iproute2 sends the kind without its NUL; so do we, so the request is byte for byte its.
  attrs.push(attrString(IFLA_IFNAME, l.name), attrNest(IFLA_LINKINFO, [attrBytes(IFLA_INFO_KIND, Buffer.from('ifb'))]));
  return Buffer.concat([encodeIfInfoMsg({ flags: IFF_UP, change: IFF_UP }), encodeAttrs(attrs)]);
}
