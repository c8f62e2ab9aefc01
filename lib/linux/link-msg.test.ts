// Expected bytes are those iproute2 sends for the same request (captured with strace), or,
// where our attribute order differs, the same attributes compared as a tree.
import t from 'tap';
import {
  encodeBridgePortOptions,
  encodeBridgeVlans,
  encodeLinkChange,
  encodeNewBridge,
  encodeNewIpvlan,
  encodeNewMacvlan,
  encodeNewVeth,
  encodeNewVlan,
} from './link-msg.ts';
import { decodeAttrs } from './nl-codec.ts';

const hex = (b: Buffer): string => b.toString('hex');
const IFINFO = 16;
const NESTS = new Set(['18', '18.2', '26']);

interface Tree {
  [key: string]: string | Tree;
}
/** Attribute tree keyed by type path; nests named in NESTS are descended into. */
function tree(buf: Buffer, path = ''): Tree {
  const out: Tree = {};
  for (const a of decodeAttrs(buf)) {
    const key = path ? `${path}.${a.type}` : String(a.type);
    // iproute2 sends IFLA_INFO_KIND without its NUL, we with it; the kernel takes both.
    const value = key === '18.1' ? hex(a.value).replace(/(00)+$/, '') : hex(a.value);
    out[String(a.type)] = NESTS.has(key) ? tree(a.value, key) : value;
  }
  return out;
}

t.test('bridge: `ip link add tbr9 mtu 1400 type bridge vlan_filtering 1`', async (t) => {
  const ours = encodeNewBridge({ name: 'tbr9', mtu: 1400, vlanFiltering: true });
  t.equal(hex(ours.subarray(0, IFINFO)), '00'.repeat(16), 'AF_UNSPEC, no index, no flags');
  const iproute2 = Buffer.from(
    '0800040078050000' + '09000300746272390000000' + '0' + '1c001200' + '0a000100' + '6272696467650000' + '0c000200' + '0500070001000000',
    'hex',
  );
  t.same(tree(ours.subarray(IFINFO)), tree(iproute2));
  const plain = encodeNewBridge({ name: 'cni0' });
  t.same(Object.keys(tree(plain.subarray(IFINFO))), ['3', '18'], 'no MTU, no IFLA_INFO_DATA when not asked');
});

t.test('veth: peer in another netns, as `ip link add vtest type veth peer name eth1 netns <fd 4>`', async (t) => {
  const ours = encodeNewVeth({ name: 'vtest' }, { name: 'eth1', netnsFd: 4 });
  const info = decodeAttrs(ours.subarray(IFINFO)).find((a) => a.type === 18)!;
  const data = decodeAttrs(info.value).find((a) => a.type === 2)!;
  const [peer] = decodeAttrs(data.value);
  t.equal(peer?.type, 1, 'VETH_INFO_PEER');
  t.notOk(peer?.nested, 'no NLA_F_NESTED on the peer, as iproute2');
  t.equal(hex(peer!.value.subarray(0, IFINFO)), '00'.repeat(16), 'the peer starts with its own ifinfomsg');
  // iproute2's peer attributes: IFLA_NET_NS_FD=4, then IFLA_IFNAME "eth1"
  const iproute2Peer = Buffer.from('08001c0004000000' + '0900030065746831' + '00000000', 'hex');
  t.same(tree(peer!.value.subarray(IFINFO)), tree(iproute2Peer));
});

t.test('veth: both ends with MTU, MAC, master and up', async (t) => {
  const mac = Buffer.from('0a580a000005', 'hex');
  const ours = encodeNewVeth({ name: 'veth01020304', mtu: 1400, master: 5, up: true }, { name: 'eth0', mtu: 1400, mac, netnsFd: 9 });
  t.equal(hex(ours.subarray(0, IFINFO)), '00000000' + '00000000' + '01000000' + '01000000', 'host end: IFF_UP in flags and change');
  const top = tree(ours.subarray(IFINFO));
  t.match(top, { '3': hex(Buffer.from('veth01020304\0')), '4': '78050000', '10': '05000000' });
  t.notOk('28' in top, 'the host end stays in the socket netns');
  const info = decodeAttrs(ours.subarray(IFINFO)).find((a) => a.type === 18)!;
  const peer = decodeAttrs(decodeAttrs(info.value).find((a) => a.type === 2)!.value)[0]!;
  t.equal(hex(peer.value.subarray(0, IFINFO)), '00'.repeat(16), 'container end not up');
  t.same(tree(peer.value.subarray(IFINFO)), { '3': hex(Buffer.from('eth0\0')), '4': '78050000', '1': '0a580a000005', '28': '09000000' });
});

t.test('bridge port options: hairpin/isolated in IFLA_INFO_SLAVE_DATA', async (t) => {
  const ours = encodeBridgePortOptions(6, { hairpin: true, isolated: false });
  t.equal(hex(ours.subarray(0, IFINFO)), '00000000' + '06000000' + '00'.repeat(8));
  const info = decodeAttrs(ours.subarray(IFINFO));
  t.equal(info.length, 1);
  t.equal(info[0]?.type, 18);
  const parts = decodeAttrs(info[0]!.value);
  t.equal(parts.find((a) => a.type === 4)?.value.toString(), 'bridge\0', 'IFLA_INFO_SLAVE_KIND');
  // `ip link set X type bridge_slave hairpin on isolated off`: IFLA_BRPORT_MODE=1, IFLA_BRPORT_ISOLATED=0
  t.equal(hex(parts.find((a) => a.type === 5)!.value), '0500040001000000' + '0500210000000000');
  t.same(
    decodeAttrs(decodeAttrs(encodeBridgePortOptions(6, { isolated: true }).subarray(IFINFO))[0]!.value).map((a) => a.type),
    [4, 5],
  );
});

t.test('bridge VLANs: `bridge vlan add dev X vid 100 pvid untagged master`', async (t) => {
  const ours = encodeBridgeVlans(6, [{ vid: 100, pvid: true, untagged: true }]);
  t.equal(hex(ours), '07000000' + '06000000' + '00'.repeat(8) + '14001a00' + '0600000001000000' + '0800020006006400');
});

t.test('bridge VLANs: a run is a RANGE_BEGIN/RANGE_END pair; PVID never spans a range', async (t) => {
  const ours = encodeBridgeVlans(6, [{ vid: 1, last: 4094 }]);
  // as `bridge vlan del dev X vid 1-4094`, plus IFLA_BRIDGE_FLAGS=MASTER
  t.equal(hex(ours.subarray(IFINFO)), '1c001a00' + '0600000001000000' + '0800020008000100' + '080002001000fe0f');
  t.throws(() => encodeBridgeVlans(6, [{ vid: 2, last: 5, pvid: true }]), RangeError);
  t.throws(() => encodeBridgeVlans(6, [{ vid: 5, last: 2 }]), RangeError);
  const tagged = encodeBridgeVlans(6, [{ vid: 100, pvid: true, untagged: true }, { vid: 200 }, { vid: 300, last: 302 }]);
  const spec = decodeAttrs(decodeAttrs(tagged.subarray(IFINFO))[0]!.value).filter((a) => a.type === 2);
  t.same(
    spec.map((a) => [a.value.readUInt16LE(0), a.value.readUInt16LE(2)]),
    [
      [6, 100],
      [0, 200],
      [8, 300],
      [16, 302],
    ],
  );
});

t.test('vlan: `ip link add link <index 3> name vl5 mtu 1400 type vlan id 100`', async (t) => {
  const ours = encodeNewVlan({ name: 'vl5', parentIndex: 3, vlanId: 100, mtu: 1400 });
  // captured: the payload of iproute2's RTM_NEWLINK (NLM_F_CREATE|NLM_F_EXCL)
  const iproute2 = Buffer.from(
    '00000000000000000000000000000000' +
      '0800040078050000' +
      '0800050003000000' +
      '08000300766c3500' +
      '18001200' +
      '08000100766c616e' +
      '0c000200' +
      '0600010064000000',
    'hex',
  );
  t.equal(hex(ours.subarray(0, IFINFO)), hex(iproute2.subarray(0, IFINFO)), 'an empty ifinfomsg');
  t.same(tree(ours.subarray(IFINFO)), tree(iproute2.subarray(IFINFO)), 'the same attributes: MTU, IFLA_LINK, name, kind vlan, IFLA_VLAN_ID 100');
  const inPod = tree(encodeNewVlan({ name: 'tmp1', parentIndex: 7, vlanId: 0, netnsFd: 12 }).subarray(IFINFO));
  t.equal(inPod['28'], '0c000000', 'IFLA_NET_NS_FD: the link is born in the pod');
  t.notOk('4' in inPod, 'no MTU attribute for the default');
  t.same(inPod['18'], { '1': hex(Buffer.from('vlan')), '2': { '1': '0000' } }, 'VLAN 0 is sent');
  for (const vlanId of [-1, 4095, 1.5]) t.throws(() => encodeNewVlan({ name: 'x', parentIndex: 1, vlanId }), RangeError, `vlan ${vlanId} refused`);
});

t.test('link change: `ip link set dev <index 2> alias orig0`, `alias ""`, `netns <fd 4> name eth7`', async (t) => {
  const captured = {
    alias: '00000000' + '02000000' + '0000000000000000' + '090014006f72696730000000',
    unalias: '00000000' + '02000000' + '0000000000000000' + '04001400',
    move: '00000000' + '02000000' + '0000000000000000' + '08001c0004000000' + '0900030065746837' + '00000000',
  };
  t.equal(hex(encodeLinkChange(2, { alias: 'orig0' })), captured.alias, 'set the alias, byte for byte');
  t.equal(hex(encodeLinkChange(2, { alias: '' })), captured.unalias, 'clear it with a zero-length attribute');
  t.equal(hex(encodeLinkChange(2, { netnsFd: 4, name: 'eth7' })), captured.move, 'move and rename in one request');
});

// `ip link add link dm0 name mv0 mtu 1400 address 0a:58:0a:00:00:05 type macvlan mode private bcqueuelen 100`
// (dm0 is index 3), as strace shows iproute2 sending it.
const IPROUTE2_MACVLAN =
  '0800040078050000' +
  '0a0001000a580a0000050000' +
  '0800050003000000' +
  '080003006d763000' +
  '24001200' +
  '0b0001006d6163766c616e00' +
  '14000200' +
  '0800070064000000' +
  '0800010001000000';
// `ip link add link dm0 name iv0 mtu 1400 type ipvlan mode l3`
const IPROUTE2_IPVLAN =
  '0800040078050000' + '0800050003000000' + '0800030069763000' + '24001200' + '0a0001006970766c616e0000' + '14000200' + '0600010001000000' + '0600020000000000';

t.test('macvlan: mode, bcqueuelen, MTU, MAC and parent as iproute2 sends them', async (t) => {
  const mac = Buffer.from('0a580a000005', 'hex');
  const ours = encodeNewMacvlan({ name: 'mv0', parent: 3, mtu: 1400, mac, mode: 'private', bcQueueLen: 100 });
  t.equal(hex(ours.subarray(0, IFINFO)), '00'.repeat(16), 'AF_UNSPEC, no index, no flags');
  t.same(tree(ours.subarray(IFINFO)), tree(Buffer.from(IPROUTE2_MACVLAN, 'hex')));
});

t.test('macvlan: each mode is its enum macvlan_mode value, always sent; no bcqueuelen unless asked', async (t) => {
  const data = (b: Buffer) => tree(b.subarray(IFINFO))['18'] as Tree;
  // if_link.h: MACVLAN_MODE_PRIVATE 1, VEPA 2, BRIDGE 4, PASSTHRU 8
  const want = { private: '01000000', vepa: '02000000', bridge: '04000000', passthru: '08000000' } as const;
  for (const [mode, value] of Object.entries(want)) {
    t.same(data(encodeNewMacvlan({ name: 'm', parent: 2, mode: mode as keyof typeof want })), { '1': hex(Buffer.from('macvlan')), '2': { '1': value } }, mode);
  }
  const top = tree(encodeNewMacvlan({ name: 'm', parent: 2, mode: 'bridge', netnsFd: 7 }).subarray(IFINFO));
  t.equal(top['28'], '07000000', 'IFLA_NET_NS_FD: created straight in the pod netns');
  t.equal(top['5'], '02000000', 'IFLA_LINK: the parent, counted in the socket netns');
  t.notOk('4' in top || '1' in top, 'no MTU, no MAC unless asked');
});

t.test('ipvlan: mode and flags as u16, as iproute2 sends them', async (t) => {
  const ours = encodeNewIpvlan({ name: 'iv0', parent: 3, mtu: 1400, mode: 'l3' });
  t.same(tree(ours.subarray(IFINFO)), tree(Buffer.from(IPROUTE2_IPVLAN, 'hex')));
  const data = (b: Buffer) => (tree(b.subarray(IFINFO))['18'] as Tree)['2'];
  // if_link.h: IPVLAN_MODE_L2 0, L3 1, L3S 2
  t.same(data(encodeNewIpvlan({ name: 'i', parent: 2, mode: 'l2' })), { '1': '0000', '2': '0000' });
  t.same(data(encodeNewIpvlan({ name: 'i', parent: 2, mode: 'l3s' })), { '1': '0200', '2': '0000' });
});
