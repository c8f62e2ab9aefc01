import t from 'tap';
import { firstHost, ipv4Broadcast, maskBytes, networkCidr, nextIp, prefixContains, sameIp } from './cidr-math.ts';
import { formatIpBytes, cidrBytes, ipBytes } from './ip-bytes.ts';

t.test('network and first host (the default gateway)', async (t) => {
  t.equal(networkCidr('10.1.2.3/24'), '10.1.2.0/24');
  t.equal(networkCidr('10.1.2.3/13'), '10.0.0.0/13');
  t.equal(networkCidr('fd00::5/64'), 'fd00::/64');
  t.equal(networkCidr('0.0.0.0/0'), '0.0.0.0/0');
  t.equal(firstHost('10.22.0.5/16'), '10.22.0.1');
  t.equal(firstHost('fd00:1::7/64'), 'fd00:1::1');
  t.equal(networkCidr('nonsense'), undefined);
});

t.test('next address carries and wraps', async (t) => {
  t.same([...nextIp(Buffer.from([10, 0, 0, 255]))], [10, 0, 1, 0]);
  t.same([...nextIp(Buffer.from([255, 255, 255, 255]))], [0, 0, 0, 0]);
  t.same([...maskBytes(Buffer.from([192, 168, 7, 9]), 20)], [192, 168, 0, 0]);
});

t.test('containment and equality', async (t) => {
  const net = cidrBytes('fd00::/48')!;
  t.ok(prefixContains(net, ipBytes('fd00:0:0:1::1')!.bytes));
  t.notOk(prefixContains(net, ipBytes('fd01::1')!.bytes));
  t.notOk(prefixContains(net, ipBytes('10.0.0.1')!.bytes), 'other family');
  t.ok(sameIp('fd00:0::1', 'fd00::1'));
  t.notOk(sameIp('10.0.0.1', '10.0.0.2'));
});

t.test('ipv4Broadcast', async (t) => {
  t.equal(formatIpBytes(ipv4Broadcast(Buffer.from([10, 1, 2, 3]), 24)), '10.1.2.255');
  t.equal(formatIpBytes(ipv4Broadcast(Buffer.from([10, 1, 2, 3]), 20)), '10.1.15.255');
  t.equal(formatIpBytes(ipv4Broadcast(Buffer.from([10, 1, 2, 3]), 32)), '10.1.2.3');
  t.equal(formatIpBytes(ipv4Broadcast(Buffer.from([10, 1, 2, 3]), 0)), '255.255.255.255');
});
