import t from 'tap';
import { attrBytes, attrNest, attrString, attrStructNest, attrU16, attrU32, attrU8, decodeAttrs, encodeAttrs, encodeIfInfoMsg, findAttr } from './nl-codec.ts';

const hex = (b: Buffer): string => b.toString('hex');

t.test('scalar attributes: length counts the payload, padding follows', async (t) => {
  t.equal(hex(encodeAttrs([attrU8(7, 1)])), '0500070001000000');
  t.equal(hex(encodeAttrs([attrU16(0, 1)])), '0600000001000000');
  t.equal(hex(encodeAttrs([attrU32(4, 1400)])), '0800040078050000');
  // "tbr0\0" is 5 bytes: nla_len 9, padded to 12
  t.equal(hex(encodeAttrs([attrString(3, 'tbr0')])), '0900030074627230' + '00000000');
  t.equal(hex(encodeAttrs([attrBytes(1, Buffer.from('0a580a000005', 'hex'))])), '0a0001000a580a0000050000');
});

t.test('nested attributes carry their children; the flag only when asked', async (t) => {
  const inner = [attrString(1, 'bridge'), attrNest(2, [attrU8(7, 1)])];
  // IFLA_LINKINFO of `ip link add x type bridge vlan_filtering 1`, as iproute2 sends it
  t.equal(hex(encodeAttrs([attrNest(18, inner)])), '1c001200' + '0b000100' + '6272696467650000' + '0c000200' + '0500070001000000');
  const flagged = encodeAttrs([attrNest(12, [attrU8(4, 1)], true)]);
  t.equal(flagged.readUInt16LE(2), 12 | 0x8000, 'NLA_F_NESTED is bit 15 (linux/netlink.h)');
});

t.test('a nest may start with a struct (VETH_INFO_PEER: ifinfomsg, then attributes)', async (t) => {
  const peer = encodeAttrs([attrStructNest(1, encodeIfInfoMsg(), [attrU32(28, 4)])]);
  t.equal(peer.readUInt16LE(0), 4 + 16 + 8);
  t.equal(hex(peer.subarray(20)), '08001c0004000000');
});

t.test('ifinfomsg layout', async (t) => {
  t.equal(hex(encodeIfInfoMsg({ family: 7, index: 5, flags: 1, change: 1 })), '07000000' + '05000000' + '01000000' + '01000000');
  t.equal(encodeIfInfoMsg().length, 16);
});

t.test('decoding: types without flags, nesting visible, truncated tail ignored', async (t) => {
  const buf = encodeAttrs([attrU8(7, 1), attrNest(2, [attrU16(3, 9)], true), attrString(3, 'x')]);
  const attrs = decodeAttrs(buf);
  t.same(
    attrs.map((a) => [a.type, a.nested]),
    [
      [7, false],
      [2, true],
      [3, false],
    ],
  );
  t.same(
    decodeAttrs(attrs[1]!.value).map((a) => a.value.readUInt16LE(0)),
    [9],
  );
  t.equal(findAttr(buf, 3)?.toString(), 'x\0');
  t.equal(findAttr(buf, 99), undefined);
  t.same(decodeAttrs(Buffer.concat([encodeAttrs([attrU8(1, 2)]), Buffer.from([0x20, 0, 1, 0])])).length, 1);
});

t.test('an attribute longer than 64 KiB is refused', async (t) => {
  t.throws(() => encodeAttrs([attrBytes(1, Buffer.alloc(70000))]), RangeError);
});
