import t from 'tap';
import type { LinkMessage } from 'netlink/dist/rt/structs.js';
import { bridgePortFlags, bridgeVlanFiltering, ipvlanMode, macvlanBcQueueLen, macvlanMode, toLinkDetail } from './link-detail.ts';
import { attrNest, attrString, attrU8, encodeAttrs } from './nl-codec.ts';

const msg = (linkinfo: Buffer, extra: Record<string, unknown> = {}): LinkMessage =>
  ({ kind: 'link', data: { index: 7, flags: { up: true } }, attrs: { ifname: 'x', linkinfo, ...extra } }) as unknown as LinkMessage;

t.test('a veth bridge port: peer index, hairpin and isolated from the slave data', async (t) => {
  const info = encodeAttrs([attrString(1, 'veth'), attrString(4, 'bridge'), attrNest(5, [attrU8(1, 3), attrU8(4, 1), attrU8(33, 0)])]);
  const peer = Buffer.alloc(4);
  peer.writeUInt32LE(2);
  const d = toLinkDetail(msg(info, { link: peer, master: 5 }));
  t.match(d, { index: 7, kind: 'veth', slaveKind: 'bridge', peerIndex: 2, masterIndex: 5, promisc: false });
  t.same(bridgePortFlags(d), { hairpin: true, isolated: false });
  t.equal(bridgeVlanFiltering(d), undefined, 'not a bridge');
});

t.test('a bridge: vlan_filtering and promiscuity', async (t) => {
  const on = toLinkDetail({ ...msg(encodeAttrs([attrString(1, 'bridge'), attrNest(2, [attrU8(7, 1)])])), data: { index: 3, flags: { promisc: true } } });
  t.equal(bridgeVlanFiltering(on), true);
  t.equal(on.promisc, true);
  t.equal(bridgePortFlags(on), undefined, 'not a port');
  t.equal(bridgeVlanFiltering(toLinkDetail(msg(encodeAttrs([attrString(1, 'bridge')])))), false);
});

t.test('a macvlan: mode and bcqueuelen from the data the kernel reports', async (t) => {
  // IFLA_INFO_DATA of `ip -d link show` on a passthru macvlan (strace of the kernel's answer):
  // MODE 8, FLAGS 0, MACADDR_COUNT 0, BC_QUEUE_LEN 1000, BC_QUEUE_LEN_USED 1000
  const data = Buffer.from('0800010008000000' + '0600020000000000' + '0800060000000000' + '08000700e8030000' + '08000800e8030000', 'hex');
  const d = toLinkDetail(msg(encodeAttrs([attrString(1, 'macvlan'), { type: 2, payload: data }])));
  t.equal(macvlanMode(d), 'passthru');
  t.equal(macvlanBcQueueLen(d), 1000);
  t.equal(ipvlanMode(d), undefined, 'not an ipvlan');
  const bridgeMode = toLinkDetail(msg(encodeAttrs([attrString(1, 'macvlan'), { type: 2, payload: Buffer.from('0800010004000000', 'hex') }])));
  t.equal(macvlanMode(bridgeMode), 'bridge');
  t.equal(macvlanBcQueueLen(bridgeMode), undefined, 'a kernel without IFLA_MACVLAN_BC_QUEUE_LEN');
});

t.test('an ipvlan: its u16 mode', async (t) => {
  for (const [hexMode, name] of [
    ['0000', 'l2'],
    ['0100', 'l3'],
    ['0200', 'l3s'],
  ] as const) {
    const data = Buffer.from(`06000100${hexMode}0000` + '0600020000000000', 'hex');
    t.equal(ipvlanMode(toLinkDetail(msg(encodeAttrs([attrString(1, 'ipvlan'), { type: 2, payload: data }])))), name);
  }
  t.equal(macvlanMode(toLinkDetail(msg(encodeAttrs([attrString(1, 'veth')])))), undefined, 'not a macvlan');
});
