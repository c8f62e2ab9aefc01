// The rtnetlink messages lib/linux encodes and decodes (rt-messages.ts): what it encodes, the
// kernel's layout, decodes back to the same link, address and route; a type it does not know is
// refused, as netlink's own decoder refuses one.
import { AttrStream } from 'netlink/dist/structs.js';
import t from 'tap';
import { formatAddressMessage, formatLinkMessage, formatRouteMessage, parseRtMessage } from './rt-messages.ts';

const RTM_NEWLINK = 16;
const RTM_NEWADDR = 20;
const RTM_NEWROUTE = 24;
const RTM_NEWQDISC = 36;
const RTM_NEWNEIGH = 28;

function encode(emit: (out: AttrStream) => void): Buffer {
  const out = new AttrStream();
  emit(out);
  return Buffer.concat(out.bufs);
}

t.test('a link: ifinfomsg (16 bytes) then its attributes', async (t) => {
  const bytes = encode((out) => formatLinkMessage({ data: { index: 3 }, attrs: { ifname: 'eth0', mtu: 1400 } }, out));
  t.equal(bytes.readUInt32LE(4), 3, 'ifi_index at offset 4');
  t.match(parseRtMessage(RTM_NEWLINK, bytes), { kind: 'link', data: { index: 3 }, attrs: { ifname: 'eth0', mtu: 1400 } });
});

t.test('an address and a route decode to what was encoded', async (t) => {
  const address = Buffer.from([10, 1, 0, 2]);
  const addr = encode((out) => formatAddressMessage({ data: { family: 2, prefixlen: 24, index: 5 }, attrs: { address, local: address } }, out));
  t.match(parseRtMessage(RTM_NEWADDR, addr), { kind: 'address', data: { family: 2, prefixlen: 24, index: 5 }, attrs: { address, local: address } });
  const gateway = Buffer.from([10, 1, 0, 1]);
  const route = encode((out) => formatRouteMessage({ data: { family: 2, dstLen: 0, table: 254 }, attrs: { gateway, oif: 5 } }, out));
  t.match(parseRtMessage(RTM_NEWROUTE, route), { kind: 'route', data: { family: 2, table: 254 }, attrs: { gateway, oif: 5 } });
});

t.test('a tc message is decoded as tc; a message too short or of another type is refused', async (t) => {
  const tcmsg = Buffer.alloc(20);
  tcmsg.writeInt32LE(4, 4); // tcm_ifindex
  t.match(parseRtMessage(RTM_NEWQDISC, tcmsg), { kind: 'tc', data: { ifindex: 4 } });
  t.throws(() => parseRtMessage(RTM_NEWLINK, Buffer.alloc(8)), /Unexpected Link message length \(8\)/);
  t.throws(() => parseRtMessage(RTM_NEWNEIGH, Buffer.alloc(12)), /Unsupported message type 28/);
});
