import t from 'tap';
import type { LinkMessage } from 'netlink/dist/rt/structs.js';
import { bridgePortFlags, bridgeVlanFiltering, toLinkDetail } from './link-detail.ts';
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
