// DHCPv4 messages (RFC 2131 §2, options RFC 2132) as bytes and back. Pure.
// Options keep their raw bytes, in the order they arrived; a code seen twice is one option whose
// parts are joined (RFC 3396, long options), as the reference's dhcpv4 library reads them.

export const MessageType = {
  Discover: 1,
  Offer: 2,
  Request: 3,
  Decline: 4,
  Ack: 5,
  Nak: 6,
  Release: 7,
  Inform: 8,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

export const Opt = {
  Pad: 0,
  SubnetMask: 1,
  Router: 3,
  HostName: 12,
  StaticRoutes: 33,
  RequestedIp: 50,
  LeaseTime: 51,
  MessageType: 53,
  ServerId: 54,
  ParameterList: 55,
  RenewalTime: 58,
  RebindingTime: 59,
  ClientId: 61,
  ClasslessRoutes: 121,
  End: 255,
} as const;

export interface DhcpMessage {
  /** 1 BOOTREQUEST, 2 BOOTREPLY */
  op: 1 | 2;
  xid: number;
  secs: number;
  /** the broadcast flag (RFC 2131 §4.1): ask the server to answer to 255.255.255.255 */
  broadcast: boolean;
  ciaddr: string;
  yiaddr: string;
  siaddr: string;
  giaddr: string;
  /** the client's hardware address, as 6 bytes */
  chaddr: Buffer;
  /** option code → value, in order */
  options: Map<number, Buffer>;
}

const MAGIC_COOKIE = 0x63825363;
const FIXED = 236;
/** BOOTP's minimum message (RFC 1542 §3.2.1): some servers and relays drop shorter ones. */
const MIN_SIZE = 300;

export class DhcpDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DhcpDecodeError';
  }
}

export function ipToBytes(ip: string): Buffer {
  const parts = ip.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new RangeError(`not an IPv4 address: ${ip}`);
  return Buffer.from(parts);
}

export function bytesToIp(b: Buffer, off = 0): string {
  return `${b[off]}.${b[off + 1]}.${b[off + 2]}.${b[off + 3]}`;
}

export function encodeMessage(m: DhcpMessage): Buffer {
  let optLen = 1; // End
  for (const v of m.options.values()) optLen += Math.max(1, Math.ceil(v.length / 255)) * 2 + v.length;
  const buf = Buffer.alloc(Math.max(MIN_SIZE, FIXED + 4 + optLen));
  buf[0] = m.op;
  buf[1] = 1; // Ethernet
  buf[2] = 6;
  buf.writeUInt32BE(m.xid >>> 0, 4);
  buf.writeUInt16BE(m.secs, 8);
  buf.writeUInt16BE(m.broadcast ? 0x8000 : 0, 10);
  ipToBytes(m.ciaddr).copy(buf, 12);
  ipToBytes(m.yiaddr).copy(buf, 16);
  ipToBytes(m.siaddr).copy(buf, 20);
  ipToBytes(m.giaddr).copy(buf, 24);
  m.chaddr.copy(buf, 28, 0, Math.min(16, m.chaddr.length));
  buf.writeUInt32BE(MAGIC_COOKIE, FIXED);
  let off = FIXED + 4;
  for (const [code, value] of m.options) {
    // A value longer than 255 bytes goes as several options of the same code (RFC 3396).
    let rest = value;
    do {
      const part = rest.subarray(0, 255);
      buf[off++] = code;
      buf[off++] = part.length;
      part.copy(buf, off);
      off += part.length;
      rest = rest.subarray(part.length);
    } while (rest.length > 0);
  }
  buf[off] = Opt.End;
  return buf;
}

export function decodeMessage(buf: Buffer): DhcpMessage {
  if (buf.length < FIXED + 4) throw new DhcpDecodeError(`a DHCP message of ${buf.length} bytes is too short`);
  if (buf.readUInt32BE(FIXED) !== MAGIC_COOKIE) throw new DhcpDecodeError('no DHCP magic cookie');
  const op = buf[0];
  if (op !== 1 && op !== 2) throw new DhcpDecodeError(`unknown op ${op}`);
  const options = new Map<number, Buffer>();
  let off = FIXED + 4;
  while (off < buf.length) {
    const code = buf[off++] as number;
    if (code === Opt.Pad) continue;
    if (code === Opt.End) break;
    if (off >= buf.length) throw new DhcpDecodeError(`option ${code} has no length`);
    const len = buf[off++] as number;
    if (off + len > buf.length) throw new DhcpDecodeError(`option ${code} runs past the message`);
    const value = buf.subarray(off, off + len);
    const before = options.get(code);
    options.set(code, before ? Buffer.concat([before, value]) : Buffer.from(value));
    off += len;
  }
  return {
    op,
    xid: buf.readUInt32BE(4),
    secs: buf.readUInt16BE(8),
    broadcast: (buf.readUInt16BE(10) & 0x8000) !== 0,
    ciaddr: bytesToIp(buf, 12),
    yiaddr: bytesToIp(buf, 16),
    siaddr: bytesToIp(buf, 20),
    giaddr: bytesToIp(buf, 24),
    chaddr: Buffer.from(buf.subarray(28, 34)),
    options,
  };
}

/** The DHCP message type (option 53), or undefined for a plain BOOTP message. */
export function messageType(m: DhcpMessage): number | undefined {
  const v = m.options.get(Opt.MessageType);
  return v?.length === 1 ? v[0] : undefined;
}
