import t from 'tap';
import { formatIpBytes, cidrBytes, ipBytes } from './ip-bytes.ts';

// Which texts are addresses, and their Go text, is lib/cni-spec/ip.test.ts; here the shape
// netlink gets: 4 or 16 bytes and the family as written.
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : undefined);

t.test('ipBytes', async (t) => {
  t.same(ipBytes('10.1.2.3'), { family: 4, bytes: Buffer.from([10, 1, 2, 3]) });
  t.equal(hex(ipBytes('::')?.bytes), '0'.repeat(32));
  t.equal(hex(ipBytes('::1')?.bytes), '0'.repeat(31) + '1');
  t.equal(hex(ipBytes('fd00::5')?.bytes), 'fd00' + '0'.repeat(27) + '5');
  t.equal(hex(ipBytes('2001:DB8:0:0:1:0:0:1')?.bytes), '20010db8000000000001000000000001');
  t.same(ipBytes('::ffff:192.0.2.1'), { family: 6, bytes: Buffer.from('00000000000000000000ffffc0000201', 'hex') }, 'IPv4-mapped stays IPv6');
  t.equal(hex(ipBytes('1:2:3:4:5:6:7::')?.bytes), '00010002000300040005000600070000');
  for (const bad of ['', '1.2.3', '256.1.1.1', '01.1.1.1', '1::2::3', 'fe80::1%eth0', '::1.2.3.4:1']) {
    t.equal(ipBytes(bad), undefined, JSON.stringify(bad));
  }
});

t.test('cidrBytes', async (t) => {
  t.same(cidrBytes('10.1.2.3/24'), { family: 4, bytes: Buffer.from([10, 1, 2, 3]), prefixLen: 24 });
  t.equal(cidrBytes('fd00::2/64')?.prefixLen, 64);
  t.equal(cidrBytes('::1/128')?.prefixLen, 128);
  t.same(cidrBytes('::ffff:10.0.0.1/120'), { family: 6, bytes: Buffer.from('00000000000000000000ffff0a000001', 'hex'), prefixLen: 120 }, 'as written');
  for (const bad of ['10.1.2.3', '10.1.2.3/33', '::1/129', '10.1.2.3/', '10.1.2.3/-1', '10.1.2.3/2a', 'x/24', '10.1.2.3/0024']) {
    t.equal(cidrBytes(bad), undefined, bad);
  }
});

t.test('formatIpBytes: Go text, IPv4-mapped as iproute2 prints it', async (t) => {
  const f = (s: string) => formatIpBytes(ipBytes(s)!.bytes);
  t.equal(formatIpBytes(Buffer.from([127, 0, 0, 1])), '127.0.0.1');
  t.equal(f('::'), '::');
  t.equal(f('::1'), '::1');
  t.equal(f('1::'), '1::');
  t.equal(f('2001:0DB8:0000:0000:0001:0000:0000:0001'), '2001:db8::1:0:0:1', 'first of equal runs');
  t.equal(f('::ffff:10.0.0.1'), '::ffff:10.0.0.1');
  t.throws(() => formatIpBytes(Buffer.alloc(5)), TypeError);
});
