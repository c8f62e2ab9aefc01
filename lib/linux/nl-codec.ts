// A small netlink attribute codec for what netlink@0.3.0 cannot write: link kinds with
// IFLA_INFO_DATA (bridge, veth peer), bridge-port slave data, IFLA_AF_SPEC for bridge VLANs.
// Its attribute writer only knows flat, typed attributes and masks off NLA_F_NESTED
// (docs/architecture.md#the-linux-layer). Pure: everything here is bytes in, bytes out, tested without root.
//
// Layout (include/uapi/linux/netlink.h): struct nlattr { u16 nla_len; u16 nla_type; } then
// the payload; nla_len counts header + payload, not the padding to 4 bytes that follows.
// Integers are host byte order (little endian on every platform Node supports here).

export const NLA_F_NESTED = 0x8000;
const NLA_F_NET_BYTEORDER = 0x4000;
const NLA_TYPE_MASK = ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER) & 0xffff;
const NLA_HDRLEN = 4;

export interface Attr {
  readonly type: number;
  readonly payload: Buffer | readonly Attr[];
}

const align4 = (n: number): number => (n + 3) & ~3;

export const attrU8 = (type: number, v: number): Attr => ({ type, payload: Buffer.from([v & 0xff]) });

export function attrU16(type: number, v: number): Attr {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(v);
  return { type, payload: b };
}

export function attrU32(type: number, v: number): Attr {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return { type, payload: b };
}

/** A 32-bit integer in network byte order (NLA_BE32, as nf_tables wants its integers); negative values as two's complement. */
export function attrBe32(type: number, v: number): Attr {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0);
  return { type, payload: b };
}

/** A NUL-terminated string, as the kernel's NLA_STRING/NLA_NUL_STRING policies want it. */
export const attrString = (type: number, s: string): Attr => ({ type, payload: Buffer.concat([Buffer.from(s, 'utf8'), Buffer.alloc(1)]) });

export const attrBytes = (type: number, b: Uint8Array): Attr => ({ type, payload: Buffer.from(b) });

/**
 * A nested attribute. iproute2 and the reference's vishvananda/netlink leave NLA_F_NESTED off
 * for IFLA_LINKINFO, IFLA_INFO_DATA, VETH_INFO_PEER and IFLA_AF_SPEC, and the rtnetlink
 * parsers for them are the lenient ("deprecated") ones; the veth peer policy is even a plain
 * length check, which a strict parser would fail with the flag set. Pass `flag` only where the
 * kernel branches on it (IFLA_PROTINFO on a bridge port).
 */
export const attrNest = (type: number, children: readonly Attr[], flag = false): Attr => ({
  type: flag ? type | NLA_F_NESTED : type,
  payload: children,
});

/** A nested attribute whose payload starts with a fixed struct (VETH_INFO_PEER: struct ifinfomsg). */
export const attrStructNest = (type: number, head: Buffer, children: readonly Attr[]): Attr => ({
  type,
  payload: Buffer.concat([head, encodeAttrs(children)]),
});

function encodedLength(a: Attr): number {
  const payload = Buffer.isBuffer(a.payload) ? a.payload.length : a.payload.reduce((n, c) => n + encodedLength(c), 0);
  return align4(NLA_HDRLEN + payload);
}

function writeAttr(a: Attr, out: Buffer, off: number): number {
  let p = off + NLA_HDRLEN;
  if (Buffer.isBuffer(a.payload)) {
    a.payload.copy(out, p);
    p += a.payload.length;
  } else {
    for (const c of a.payload) p = writeAttr(c, out, p);
  }
  const len = p - off;
  if (len > 0xffff) throw new RangeError(`netlink attribute ${a.type & NLA_TYPE_MASK} too long (${len} bytes)`);
  out.writeUInt16LE(len, off);
  out.writeUInt16LE(a.type, off + 2);
  return off + align4(len);
}

/** Attributes back to back, each padded to 4 bytes (the padding is zeroes). */
export function encodeAttrs(attrs: readonly Attr[]): Buffer {
  const out = Buffer.alloc(attrs.reduce((n, a) => n + encodedLength(a), 0));
  let off = 0;
  for (const a of attrs) off = writeAttr(a, out, off);
  return out;
}

export interface IfInfoMsg {
  family?: number;
  /** ARPHRD_* */
  type?: number;
  index?: number;
  /** IFF_* bits to set, among those in `change` */
  flags?: number;
  change?: number;
}

export const IFINFOMSG_LEN = 16;

/** struct ifinfomsg { u8 family; u8 pad; u16 type; s32 index; u32 flags; u32 change; } */
export function encodeIfInfoMsg(m: IfInfoMsg = {}): Buffer {
  const b = Buffer.alloc(IFINFOMSG_LEN);
  b.writeUInt8(m.family ?? 0, 0);
  b.writeUInt16LE(m.type ?? 0, 2);
  b.writeInt32LE(m.index ?? 0, 4);
  b.writeUInt32LE((m.flags ?? 0) >>> 0, 8);
  b.writeUInt32LE((m.change ?? 0) >>> 0, 12);
  return b;
}

export interface RawAttr {
  /** type without the NLA_F_* bits */
  type: number;
  nested: boolean;
  value: Buffer;
}

/** Splits a run of attributes; a truncated tail is ignored, as the kernel's nla_for_each does. */
export function decodeAttrs(buf: Uint8Array): RawAttr[] {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: RawAttr[] = [];
  for (let off = 0; off + NLA_HDRLEN <= b.length;) {
    const len = b.readUInt16LE(off);
    const rawType = b.readUInt16LE(off + 2);
    if (len < NLA_HDRLEN || off + len > b.length) break;
    out.push({ type: rawType & NLA_TYPE_MASK, nested: (rawType & NLA_F_NESTED) !== 0, value: b.subarray(off + NLA_HDRLEN, off + len) });
    off += align4(len);
  }
  return out;
}

/**
 * The first attribute of a type in a run, or undefined: decodeAttrs(buf).find, without
 * building the rest (rule dumps look up a few attributes of every expression of every rule).
 */
export function findAttr(buf: Uint8Array, type: number): Buffer | undefined {
  const b = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let off = 0; off + NLA_HDRLEN <= b.length;) {
    const len = b.readUInt16LE(off);
    if (len < NLA_HDRLEN || off + len > b.length) return undefined;
    if ((b.readUInt16LE(off + 2) & NLA_TYPE_MASK) === type) return b.subarray(off + NLA_HDRLEN, off + len);
    off += align4(len);
  }
  return undefined;
}

/** A string attribute's text: up to its NUL, or all of it when it has none; '' for no attribute. */
export function attrText(b: Buffer | undefined): string {
  if (b === undefined) return '';
  const nul = b.indexOf(0);
  return b.subarray(0, nul < 0 ? b.length : nul).toString('utf8');
}
