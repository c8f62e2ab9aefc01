import t from 'tap';
import type { LinkMessage } from 'netlink/dist/rt/structs.js';
import { linkKindFromInfo, toLinkInfo } from './link-parse.ts';

// Builds one netlink attribute: u16 length, u16 type, payload, padding to 4.
function nla(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(4 + payload.length, 0);
  head.writeUInt16LE(type, 2);
  const pad = Buffer.alloc((4 - (payload.length % 4)) % 4);
  return Buffer.concat([head, payload, pad]);
}

t.test('linkKindFromInfo', async (t) => {
  const kind = nla(1, Buffer.from('veth\0'));
  const data = nla(2 | 0x8000, nla(1, Buffer.alloc(8))); // IFLA_INFO_DATA, nested flag set
  t.equal(linkKindFromInfo(kind), 'veth');
  t.equal(linkKindFromInfo(Buffer.concat([data, nla(1, Buffer.from('bridge\0'))])), 'bridge', 'found after another attribute');
  t.equal(linkKindFromInfo(nla(1 | 0x8000, Buffer.from('ifb\0'))), 'ifb', 'flag bits ignored');
  t.equal(linkKindFromInfo(nla(1, Buffer.from('dummy'))), 'dummy', 'tolerates a missing NUL');
  t.equal(linkKindFromInfo(data), undefined);
  t.equal(linkKindFromInfo(Buffer.alloc(0)), undefined);
  const truncated = nla(1, Buffer.from('veth\0')).subarray(0, 6);
  t.equal(linkKindFromInfo(truncated), undefined, 'truncated attribute');
});

t.test('toLinkInfo', async (t) => {
  const msg: LinkMessage = {
    kind: 'link',
    data: { index: 7, flags: { up: true, broadcast: true } },
    attrs: {
      ifname: 'veth0',
      mtu: 1450,
      operstate: 6,
      master: 3,
      address: Buffer.from([0xde, 0xad, 0xbe, 0xef, 0, 1]),
      linkinfo: nla(1, Buffer.from('veth\0')),
    },
  };
  t.same(toLinkInfo(msg), { index: 7, name: 'veth0', up: true, operState: 'UP', mtu: 1450, mac: 'de:ad:be:ef:00:01', kind: 'veth', masterIndex: 3 });
  const bare = toLinkInfo({ kind: 'link', data: { index: 1, flags: {} }, attrs: { ifname: 'lo', mtu: 65536, operstate: 2 } });
  t.same(bare, { index: 1, name: 'lo', up: false, operState: 'DOWN', mtu: 65536, mac: '' });
  t.notOk('kind' in bare, 'no kind key for devices without IFLA_INFO_KIND');
  t.equal(toLinkInfo({ kind: 'link', data: {}, attrs: { operstate: 99 } }).operState, 'UNKNOWN');
});
