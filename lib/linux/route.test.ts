import t from 'tap';
import type { RouteMessage } from 'netlink/dist/rt/structs.js';
import { toRouteInfos } from './route.ts';

t.test('a plain route', async (t) => {
  const msg = {
    kind: 'route',
    data: { family: 2, dstLen: 24, table: 254, scope: 'LINK' },
    attrs: { dst: Buffer.from([10, 0, 0, 0]), oif: 2, table: 254 },
  } as unknown as RouteMessage;
  t.same(toRouteInfos(msg), [{ family: 4, dst: '10.0.0.0/24', table: 254, scope: 253, index: 2 }]);
});

t.test('a default route with gateway, metric and a table above 255', async (t) => {
  const msg = {
    kind: 'route',
    data: { family: 10, dstLen: 0, table: 0, scope: 'UNIVERSE' },
    attrs: { gateway: Buffer.from('fd000000000000000000000000000001', 'hex'), oif: 3, table: 1000, priority: 1024 },
  } as unknown as RouteMessage;
  t.same(toRouteInfos(msg), [{ family: 6, dst: '::/0', table: 1000, scope: 0, priority: 1024, index: 3, gw: 'fd00::1' }]);
});

t.test('an ECMP route lists one entry per next hop', async (t) => {
  // struct rtnexthop { u16 len; u8 flags; u8 hops; s32 ifindex } + RTA_GATEWAY (16 bytes)
  const hop = (index: number, last: number): Buffer => {
    const b = Buffer.alloc(8 + 20);
    b.writeUInt16LE(28, 0);
    b.writeInt32LE(index, 4);
    b.writeUInt16LE(20, 8);
    b.writeUInt16LE(5, 10);
    b[12] = 0xfd;
    b[27] = last;
    return b;
  };
  const msg = {
    kind: 'route',
    data: { family: 10, dstLen: 0, table: 254, scope: 'UNIVERSE' },
    attrs: { multipath: Buffer.concat([hop(2, 1), hop(2, 2)]), table: 254 },
  } as unknown as RouteMessage;
  t.same(
    toRouteInfos(msg).map((r) => [r.dst, r.gw, r.index]),
    [
      ['::/0', 'fd00::1', 2],
      ['::/0', 'fd00::2', 2],
    ],
  );
});

t.test('families other than IPv4/IPv6 are skipped', async (t) => {
  t.same(toRouteInfos({ kind: 'route', data: { family: 7 }, attrs: {} } as unknown as RouteMessage), []);
});
