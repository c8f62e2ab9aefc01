// ctnetlink messages for portmap's UDP flush (pure): the dump request, reading a dumped entry's
// original tuple, and the delete request for it. Layouts: include/uapi/linux/netfilter/
// nfnetlink.h (struct nfgenmsg) and nfnetlink_conntrack.h (CTA_* attributes). Ports inside the
// tuple are big endian (NLA_F_NET_BYTEORDER semantics without the flag), as the kernel sends them.
import { decodeAttrs, encodeAttrs, findAttr, NLA_F_NESTED } from './nl-codec.ts';

export const NETLINK_NETFILTER = 12;
const NFNL_SUBSYS_CTNETLINK = 1;
export const IPCTNL_MSG_CT_NEW = 0;
export const IPCTNL_MSG_CT_GET = 1;
export const IPCTNL_MSG_CT_DELETE = 2;
/** nlmsg_type = subsystem << 8 | message */
export const ctMsgType = (msg: number): number => (NFNL_SUBSYS_CTNETLINK << 8) | msg;

export const AF_INET = 2;
export const AF_INET6 = 10;
export const IPPROTO_UDP = 17;

const CTA_TUPLE_ORIG = 1;
const CTA_ZONE = 18;
const CTA_TUPLE_PROTO = 2;
const CTA_PROTO_NUM = 1;
const CTA_PROTO_DST_PORT = 3;

/** struct nfgenmsg: family, version NFNETLINK_V0, res_id 0 (big endian). */
export function encodeNfgenmsg(family: number): Buffer {
  return Buffer.from([family, 0, 0, 0]);
}

/** The payload of a dump request of one family's conntrack table. */
export function encodeCtDumpRequest(family: number): Buffer {
  return encodeNfgenmsg(family);
}

export interface CtEntry {
  readonly family: number;
  readonly protocol: number;
  readonly dstPort: number;
  /** CTA_TUPLE_ORIG exactly as dumped (header included): sent back to delete the entry */
  readonly origTuple: Buffer;
  /** CTA_ZONE as dumped, if the entry is in a zone */
  readonly zone?: Buffer;
}

/** A dumped IPCTNL_MSG_CT_NEW payload (nfgenmsg + attributes); undefined when it lacks the tuple. */
export function decodeCtEntry(payload: Buffer): CtEntry | undefined {
  if (payload.length < 4) return undefined;
  const family = payload[0]!;
  const attrs = decodeAttrs(payload.subarray(4));
  const orig = attrs.find((a) => a.type === CTA_TUPLE_ORIG);
  if (orig === undefined) return undefined;
  const proto = findAttr(orig.value, CTA_TUPLE_PROTO);
  const num = proto && findAttr(proto, CTA_PROTO_NUM);
  const port = proto && findAttr(proto, CTA_PROTO_DST_PORT);
  if (num === undefined || num.length < 1) return undefined;
  const zone = attrs.find((a) => a.type === CTA_ZONE);
  return {
    family,
    protocol: num[0]!,
    dstPort: port !== undefined && port.length >= 2 ? port.readUInt16BE(0) : 0,
    origTuple: encodeAttrs([{ type: CTA_TUPLE_ORIG | NLA_F_NESTED, payload: orig.value }]),
    ...(zone && { zone: encodeAttrs([{ type: CTA_ZONE, payload: zone.value }]) }),
  };
}

/**
 * The delete request for a dumped entry: its original tuple (and zone). Never without a
 * tuple: a CT_DELETE that names none flushes the whole table.
 */
export function encodeCtDelete(e: CtEntry): Buffer {
  if (e.origTuple.length === 0) throw new Error('refusing a conntrack delete without a tuple (it would flush the table)');
  return Buffer.concat([encodeNfgenmsg(e.family), e.origTuple, ...(e.zone ? [e.zone] : [])]);
}
