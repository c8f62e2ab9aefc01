// The IPv4 and UDP headers around a DHCP message, for a packet socket (which sends and receives
// IP datagrams: the kernel adds and strips only the Ethernet header). Pure.
import { randomInt } from 'node:crypto';
import { bytesToIp, ipToBytes } from './message.ts';

export const CLIENT_PORT = 68;
export const SERVER_PORT = 67;

export interface UdpDatagram {
  src: string;
  dst: string;
  srcPort: number;
  dstPort: number;
  payload: Buffer;
}

/** The Internet checksum (RFC 1071) of the bytes, starting from `sum`. */
function checksum(bytes: Buffer, sum = 0): number {
  for (let i = 0; i + 1 < bytes.length; i += 2) sum += bytes.readUInt16BE(i);
  if (bytes.length % 2 === 1) sum += (bytes[bytes.length - 1] as number) << 8;
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

export function encodeUdpDatagram(d: UdpDatagram): Buffer {
  const udpLen = 8 + d.payload.length;
  const buf = Buffer.alloc(20 + udpLen);
  buf[0] = 0x45;
  buf.writeUInt16BE(buf.length, 2);
  buf.writeUInt16BE(randomInt(0x10000), 4);
  buf[8] = 64; // TTL
  buf[9] = 17; // UDP
  ipToBytes(d.src).copy(buf, 12);
  ipToBytes(d.dst).copy(buf, 16);
  buf.writeUInt16BE(checksum(buf.subarray(0, 20)), 10);
  buf.writeUInt16BE(d.srcPort, 20);
  buf.writeUInt16BE(d.dstPort, 22);
  buf.writeUInt16BE(udpLen, 24);
  d.payload.copy(buf, 28);
  // The pseudo-header: source, destination, protocol, UDP length.
  const pseudo = Buffer.alloc(12);
  buf.copy(pseudo, 0, 12, 20);
  pseudo[9] = 17;
  pseudo.writeUInt16BE(udpLen, 10);
  const sum = checksum(Buffer.concat([pseudo, buf.subarray(20)]));
  buf.writeUInt16BE(sum === 0 ? 0xffff : sum, 26);
  return buf;
}

/** The UDP datagram inside an IPv4 packet, or undefined for anything else (or a broken one). */
export function decodeUdpDatagram(buf: Buffer): UdpDatagram | undefined {
  if (buf.length < 20 || buf[0]! >> 4 !== 4 || buf[9] !== 17) return undefined;
  const ihl = (buf[0]! & 0x0f) * 4;
  const total = Math.min(buf.readUInt16BE(2), buf.length);
  if (ihl < 20 || total < ihl + 8) return undefined;
  const udpLen = buf.readUInt16BE(ihl + 4);
  if (udpLen < 8 || ihl + udpLen > total) return undefined;
  return {
    src: bytesToIp(buf, 12),
    dst: bytesToIp(buf, 16),
    srcPort: buf.readUInt16BE(ihl),
    dstPort: buf.readUInt16BE(ihl + 2),
    payload: Buffer.from(buf.subarray(ihl + 8, ihl + udpLen)),
  };
}
