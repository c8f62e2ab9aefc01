// IFLA_* attributes of an RTM_NEWLINK message → netlink@0.3.0's LinkAttrs, the same object its
// parseLinkAttrs returns, decoded with less work. netlink's decoder builds a table of 54 closures
// on every call and decodes every attribute the kernel sends, counters and per-family
// configuration included; in a fresh process that first decode took 1–2 ms (measured in the Bun
// binary), though lib/linux reads a handful of scalar fields. Here the scalar attributes are
// read in one pass from a table of plain data, and the structured ones (counters, IFLA_AF_SPEC,
// VF lists, XDP) are decoded by netlink's own functions only when a caller reads them.
// link-attrs.test.ts compares both decoders on messages the kernel sent.
import { getMap } from 'netlink/dist/structs.js';
import { parseLinkStats, parseLinkStats64, parsePort, parsePortList, parseVirtualFunctionList, parseXdp, type LinkAttrs } from 'netlink/dist/rt/ifla.js';

// How netlink reads each type (include/uapi/linux/if_link.h; the order of netlink's ifla.js):
// raw bytes, a NUL-terminated string, a fixed-size integer, or a structure decoded on access.
type Scalar = 'raw' | 'str' | 'u8' | 'u32' | 's32';
type Lazy = 'stats' | 'stats64' | 'map' | 'vfs' | 'ports' | 'port' | 'xdp';

const FIELDS: readonly (readonly [string, Scalar | Lazy])[] = [
  ['', 'raw'], // 0: IFLA_UNSPEC, not decoded
  ['address', 'raw'],
  ['broadcast', 'raw'],
  ['ifname', 'str'],
  ['mtu', 'u32'],
  ['link', 'raw'],
  ['qdisc', 'str'],
  ['stats', 'stats'],
  ['cost', 'raw'],
  ['priority', 'raw'],
  ['master', 'u32'],
  ['wireless', 'raw'],
  ['protinfo', 'map'],
  ['txqlen', 'u32'],
  ['map', 'raw'],
  ['weight', 'u32'],
  ['operstate', 'u8'],
  ['linkmode', 'u8'],
  ['linkinfo', 'raw'],
  ['netNsPid', 'u32'],
  ['ifalias', 'str'],
  ['numVf', 'u32'],
  ['vfinfoList', 'vfs'],
  ['stats64', 'stats64'],
  ['vfPorts', 'ports'],
  ['portSelf', 'port'],
  ['afSpec', 'map'],
  ['group', 'u32'],
  ['netNsFd', 'u32'],
  ['extMask', 'raw'],
  ['promiscuity', 'u32'],
  ['numTxQueues', 'u32'],
  ['numRxQueues', 'u32'],
  ['carrier', 'u8'],
  ['physPortId', 'raw'],
  ['carrierChanges', 'u32'],
  ['physSwitchId', 'raw'],
  ['linkNetnsid', 's32'],
  ['physPortName', 'str'],
  ['protoDown', 'raw'],
  ['gsoMaxSegs', 'u32'],
  ['gsoMaxSize', 'u32'],
  ['__pad', 'raw'],
  ['xdp', 'xdp'],
  ['event', 'raw'],
  ['newNetnsid', 'raw'],
  ['targetNetnsid', 'u32'],
  ['carrierUpCount', 'u32'],
  ['carrierDownCount', 'u32'],
  ['newIfindex', 'u32'],
  ['minMtu', 'u32'],
  ['maxMtu', 'u32'],
  ['propList', 'raw'],
  ['altIfname', 'str'],
  ['permAddress', 'raw'],
];

const NLA_F_NET_BYTEORDER = 0x4000;
const NLA_TYPE_MASK = 0x3fff;

function sized(data: Buffer, n: number): Buffer {
  if (data.length !== n) throw new Error(`Unexpected length (got ${data.length}, expected ${n})`);
  return data;
}

function scalar(kind: Scalar, data: Buffer): unknown {
  switch (kind) {
    case 'raw':
      return data;
    case 'str':
      if (data[data.length - 1] !== 0) throw new Error('Not null terminated');
      return data.toString(undefined, 0, data.length - 1);
    case 'u8':
      return sized(data, 1).readUInt8(0);
    case 'u32':
      return sized(data, 4).readUInt32LE(0);
    case 's32':
      return sized(data, 4).readInt32LE(0);
  }
}

function structured(kind: Lazy, data: Buffer): unknown {
  switch (kind) {
    case 'stats':
      return parseLinkStats(data);
    case 'stats64':
      return parseLinkStats64(data);
    case 'map':
      return getMap(data, (x: Buffer) => x);
    case 'vfs':
      return parseVirtualFunctionList(data);
    case 'ports':
      return parsePortList(data);
    case 'port':
      return parsePort(data);
    case 'xdp':
      return parseXdp(data);
  }
}

/** Defines `name` on obj as a value decoded from data on first read, then kept. */
function defineLazy(obj: object, name: string, kind: Lazy, data: Buffer): void {
  Object.defineProperty(obj, name, {
    configurable: true,
    enumerable: true,
    get() {
      const value = structured(kind, data);
      Object.defineProperty(obj, name, { value, configurable: true, enumerable: true, writable: true });
      return value;
    },
  });
}

/**
 * The attributes as netlink's parseLinkAttrs returns them: same names, same values, a later
 * attribute of a type replacing an earlier one, unknown types left out; the same errors for a
 * truncated attribute, a wrong-sized integer or an unterminated string. Structured attributes
 * are decoded (and their errors thrown) when read.
 */
export function parseLinkAttrsQuick(r: Buffer): LinkAttrs {
  const obj: Record<string, unknown> = {};
  for (let off = 0; off < r.length;) {
    if (r.length - off < 4) throw new Error('Not enough data');
    const length = r.readUInt16LE(off);
    const typeAndFlags = r.readUInt16LE(off + 2);
    if (length < 4 || r.length - off < length) throw new Error(`Invalid attribute length (${length})`);
    const field = FIELDS[typeAndFlags & NLA_TYPE_MASK];
    if (field !== undefined && field[0] !== '') {
      if (typeAndFlags & NLA_F_NET_BYTEORDER) throw new Error('Unexpected attribute with NO set');
      const data = r.subarray(off + 4, off + length);
      const [name, kind] = field;
      // A name has one kind, so a repeated attribute replaces a value of its own kind.
      if (kind === 'raw' || kind === 'str' || kind === 'u8' || kind === 'u32' || kind === 's32') obj[name] = scalar(kind, data);
      else defineLazy(obj, name, kind, data);
    }
    off += (length + 3) & ~3;
  }
  return obj;
}
