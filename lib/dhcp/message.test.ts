import t from 'tap';
import { decodeMessage, encodeMessage, MessageType, messageType, Opt, type DhcpMessage } from './message.ts';

const mac = Buffer.from([0x02, 0x42, 0xac, 0x11, 0x00, 0x02]);
const discover = (options: Map<number, Buffer>, broadcast = false): DhcpMessage => ({
  op: 1,
  xid: 0xdeadbeef,
  secs: 0,
  broadcast,
  ciaddr: '0.0.0.0',
  yiaddr: '0.0.0.0',
  siaddr: '0.0.0.0',
  giaddr: '0.0.0.0',
  chaddr: mac,
  options,
});

t.test('a DISCOVER lands at the offsets of RFC 2131 §2, at least BOOTP’s 300 bytes', async (t) => {
  const b = encodeMessage(discover(new Map([[Opt.MessageType, Buffer.from([1])]]), true));
  t.ok(b.length >= 300, `${b.length} bytes`);
  t.same([...b.subarray(0, 4)], [1, 1, 6, 0], 'op BOOTREQUEST, htype Ethernet, hlen 6, hops 0');
  t.equal(b.toString('hex', 4, 8), 'deadbeef', 'xid');
  t.equal(b.toString('hex', 10, 12), '8000', 'the broadcast flag');
  t.equal(b.toString('hex', 28, 34), '0242ac110002', 'chaddr');
  t.equal(b.toString('hex', 236, 240), '63825363', 'the magic cookie');
  t.same([...b.subarray(240, 244)], [53, 1, 1, 255], 'option 53 DISCOVER, then End');
});

t.test('a reply decodes: addresses, flags, options; a code seen twice is one option (RFC 3396)', async (t) => {
  const b = Buffer.alloc(300);
  b[0] = 2;
  b[1] = 1;
  b[2] = 6;
  b.writeUInt32BE(0x01020304, 4);
  Buffer.from([192, 168, 99, 123]).copy(b, 16); // yiaddr
  Buffer.from([192, 168, 99, 1]).copy(b, 20); // siaddr
  mac.copy(b, 28);
  b.writeUInt32BE(0x63825363, 236);
  Buffer.from([53, 1, 2, 0, 1, 4, 255, 255, 255, 0, 121, 2, 24, 10, 121, 6, 20, 30, 10, 0, 0, 1, 255]).copy(b, 240);
  const m = decodeMessage(b);
  t.equal(m.op, 2);
  t.equal(m.xid, 0x01020304);
  t.equal(m.yiaddr, '192.168.99.123');
  t.equal(m.siaddr, '192.168.99.1');
  t.equal(m.broadcast, false);
  t.ok(m.chaddr.equals(mac));
  t.equal(messageType(m), MessageType.Offer);
  t.equal(m.options.get(Opt.SubnetMask)?.toString('hex'), 'ffffff00', 'after a pad');
  t.equal(m.options.get(Opt.ClasslessRoutes)?.toString('hex'), '180a141e0a000001', 'both parts, in order');
});

t.test('a long option goes out as several of the same code and comes back whole', async (t) => {
  const long = Buffer.alloc(300, 7);
  const m = decodeMessage(encodeMessage(discover(new Map([[Opt.HostName, long]]))));
  t.ok(m.options.get(Opt.HostName)?.equals(long));
});

t.test('broken messages are refused, not misread', async (t) => {
  t.throws(() => decodeMessage(Buffer.alloc(100)), /too short/);
  t.throws(() => decodeMessage(Buffer.alloc(300)), /magic cookie/);
  const b = encodeMessage(discover(new Map()));
  b[240] = 12;
  b[241] = 200;
  t.throws(() => decodeMessage(b.subarray(0, 260)), /runs past/);
});
