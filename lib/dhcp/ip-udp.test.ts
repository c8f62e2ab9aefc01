import t from 'tap';
import { decodeUdpDatagram, encodeUdpDatagram } from './ip-udp.ts';

/** RFC 1071: the one's complement sum over a block with its checksum in place is 0xffff. */
function sum16(b: Buffer): number {
  let s = 0;
  for (let i = 0; i < b.length; i += 2) s += (b[i] as number) * 256 + (b[i + 1] ?? 0);
  while (s > 0xffff) s = (s & 0xffff) + (s >>> 16);
  return s;
}

t.test('IPv4 and UDP headers a kernel accepts: lengths, protocol, both checksums', async (t) => {
  const payload = Buffer.from('hello, dhcp');
  const b = encodeUdpDatagram({ src: '0.0.0.0', dst: '255.255.255.255', srcPort: 68, dstPort: 67, payload });
  t.equal(b[0], 0x45, 'version 4, 20-byte header');
  t.equal(b.readUInt16BE(2), 20 + 8 + payload.length, 'total length');
  t.equal(b[9], 17, 'UDP');
  t.equal(sum16(b.subarray(0, 20)), 0xffff, 'the header checksum verifies');
  const pseudo = Buffer.concat([b.subarray(12, 20), Buffer.from([0, 17]), b.subarray(24, 26)]);
  t.equal(sum16(Buffer.concat([pseudo, b.subarray(20)])), 0xffff, 'the UDP checksum verifies over the pseudo-header');
  t.same(decodeUdpDatagram(b), { src: '0.0.0.0', dst: '255.255.255.255', srcPort: 68, dstPort: 67, payload });
});

t.test('anything but an intact UDP datagram reads as nothing', async (t) => {
  const good = encodeUdpDatagram({ src: '10.0.0.1', dst: '10.0.0.2', srcPort: 67, dstPort: 68, payload: Buffer.alloc(10) });
  t.equal(decodeUdpDatagram(good.subarray(0, 10)), undefined, 'truncated header');
  const tcp = Buffer.from(good);
  tcp[9] = 6;
  t.equal(decodeUdpDatagram(tcp), undefined, 'TCP');
  const v6 = Buffer.from(good);
  v6[0] = 0x60;
  t.equal(decodeUdpDatagram(v6), undefined, 'IPv6');
  const longUdp = Buffer.from(good);
  longUdp.writeUInt16BE(500, 24);
  t.equal(decodeUdpDatagram(longUdp), undefined, 'a UDP length past the packet');
});
