import t from 'tap';
import type { DhcpMessage } from './message.ts';
import { clientIdOf, leaseAddress, leaseGateway, leaseRoutes, leaseTimes, parseOptionName, prepareOptions } from './options.ts';

const ack = (options: [number, number[]][]): DhcpMessage => ({
  op: 2,
  xid: 1,
  secs: 0,
  broadcast: false,
  ciaddr: '0.0.0.0',
  yiaddr: '192.168.99.123',
  siaddr: '0.0.0.0',
  giaddr: '0.0.0.0',
  chaddr: Buffer.alloc(6),
  options: new Map(options.map(([c, v]) => [c, Buffer.from(v)])),
});

t.test('option names: the reference’s dhcp-options(5) names, or 0–255', async (t) => {
  t.equal(parseOptionName('host-name'), 12);
  t.equal(parseOptionName('dhcp-client-identifier'), 61);
  t.equal(parseOptionName('vendor-class-identifier'), 60);
  t.equal(parseOptionName('user-class'), 77);
  t.equal(parseOptionName('121'), 121);
  t.throws(() => parseOptionName('256'), /value out of range/);
  t.throws(() => parseOptionName('hostname'), /Can not parse option "hostname": .*invalid syntax/);
});

t.test('the request list defaults to router and subnet mask; provide takes literals and CNI_ARGS', async (t) => {
  t.same([...(prepareOptions('', [], []).get(55) ?? [])], [3, 1], 'router, subnet mask');
  t.same([...(prepareOptions('', [], [{ option: '121' }, { option: 'routers' }]).get(55) ?? [])], [121, 3, 1], 'asked ones first, no repeats');
  t.equal(prepareOptions('', [], [{ skipDefault: true }]).get(55), undefined, 'skipDefault alone: no list');
  const o = prepareOptions(
    'K8S_POD_NAMESPACE=ns;K8S_POD_NAME=web-0',
    [
      { option: 'host-name', fromArg: 'K8S_POD_NAME' },
      { option: '60', value: 'cni' },
    ],
    [],
  );
  t.equal(o.get(12)?.toString(), 'web-0', 'host-name from CNI_ARGS');
  t.equal(o.get(60)?.toString(), 'cni', 'a literal value');
  t.throws(() => prepareOptions('', [{ option: 'host-name', value: 'x'.repeat(256) }], []), /value too long/);
});

t.test('the client ID is the reference’s, cut at 254 bytes', async (t) => {
  t.equal(clientIdOf('c1', 'lan', 'eth0'), 'c1/lan/eth0');
  t.equal(clientIdOf('c'.repeat(300), 'lan', 'eth0').length, 254);
});

t.test('address and gateway: a mask is required', async (t) => {
  t.equal(leaseAddress(ack([[1, [255, 255, 240, 0]]])), '192.168.99.123/20');
  t.throws(() => leaseAddress(ack([])), /Subnet Mask not found in DHCPACK/);
  t.throws(() => leaseAddress(ack([[1, [255, 0, 255, 0]]])), /not a prefix/);
  t.equal(leaseGateway(ack([[3, [192, 168, 99, 1, 192, 168, 99, 2]]])), '192.168.99.1', 'the first router');
  t.equal(leaseGateway(ack([])), undefined);
});

t.test('routes: option 121 alone when present (RFC 3442), else option 33 and a default route', async (t) => {
  // RFC 3442 §3 encodings: 192.168.50.0/24 → 24.192.168.50; 0/0 → 0; a /32 with no router is on-link.
  const opt121 = [24, 192, 168, 50, 10, 0, 0, 1, 0, 10, 0, 0, 1, 32, 10, 1, 2, 3, 0, 0, 0, 0];
  t.same(
    leaseRoutes(
      ack([
        [121, opt121],
        [3, [10, 9, 9, 9]],
        [33, [10, 2, 0, 0, 10, 0, 0, 1]],
      ]),
    ),
    [
      { dst: '192.168.50.0/24', gw: '10.0.0.1' },
      { dst: '0.0.0.0/0', gw: '10.0.0.1' },
      { dst: '10.1.2.3/32', gw: '0.0.0.0', scope: 253 },
    ],
  );
  t.same(
    leaseRoutes(
      ack([
        [33, [10, 2, 0, 0, 10, 0, 0, 1, 172, 16, 0, 0, 10, 0, 0, 2, 192, 168, 7, 0, 10, 0, 0, 3]],
        [3, [10, 0, 0, 254]],
      ]),
    ),
    [
      { dst: '10.2.0.0/8', gw: '10.0.0.1' },
      { dst: '172.16.0.0/16', gw: '10.0.0.2' },
      { dst: '192.168.7.0/24', gw: '10.0.0.3' },
      { dst: '0.0.0.0/0', gw: '10.0.0.254' },
    ],
    'option 33 destinations take their classful masks',
  );
  t.same(leaseRoutes(ack([[3, [10, 0, 0, 254]]]), 50), [{ dst: '0.0.0.0/0', gw: '10.0.0.254', priority: 50 }], 'priority on each route');
  t.same(leaseRoutes(ack([])), [], 'no router, no routes');
});

t.test('times: T1 and T2 from options 58 and 59, else half and 85% of the lease, which defaults to an hour', async (t) => {
  const s = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  t.same(
    leaseTimes(
      ack([
        [51, s(120)],
        [58, s(10)],
        [59, s(100)],
      ]),
      1000,
    ),
    { renewAt: 11_000, rebindAt: 101_000, expireAt: 121_000 },
  );
  t.same(leaseTimes(ack([[51, s(200)]]), 0), { renewAt: 100_000, rebindAt: 170_000, expireAt: 200_000 });
  t.same(leaseTimes(ack([]), 0), { renewAt: 1_800_000, rebindAt: 3_060_000, expireAt: 3_600_000 });
});
