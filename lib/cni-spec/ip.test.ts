import t from 'tap';
import { canonicalCIDR, canonicalIP, formatIP, isV4, parseCIDRAsWritten, parseIP } from './ip.ts';

t.test('IPs parse and print like Go net.ParseIP / IP.String', async (t) => {
  const cases: [string, string | undefined][] = [
    ['10.1.2.3', '10.1.2.3'],
    ['255.255.255.255', '255.255.255.255'],
    ['256.1.1.1', undefined],
    ['010.1.1.1', undefined], // leading zeros refused since Go 1.17
    ['1.2.3', undefined],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'], // first of two equal runs
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['1:0:1:1:1:1:1:1', '1:0:1:1:1:1:1:1'], // a single zero word is not compressed
    ['2001:0DB8:0000:0000:0001:0000:0000:0001', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'], // the longest run wins
    ['fe80::fc:ff:fe00:1', 'fe80::fc:ff:fe00:1'],
    ['fd00::5', 'fd00::5'],
    ['::', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['::ffff:10.0.0.1', '10.0.0.1'], // IPv4-mapped prints as IPv4
    ['::10.0.0.1', '::a00:1'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['1::2::3', undefined],
    ['1:2:3:4:5:6:7:8:9', undefined],
    ['fe80::1%eth0', undefined], // zones are refused
    ['12345::1', undefined],
    ['', undefined],
    ['1.2.3.4.5', undefined],
    ['01.1.1.1', undefined],
    ['1.2.3.-1', undefined],
    [':::', undefined],
    [':1', undefined],
    ['1:', undefined],
    ['12345::', undefined],
    ['1:2:3:4:5:6:7', undefined],
    ['1:2:3:4:5:6:7:8::', undefined], // "::" stands for at least one zero word
    ['1.2.3.4::', undefined], // only the last group may be dotted
    ['g::1', undefined],
    ['::1.2.3.4:1', undefined],
  ];
  for (const [input, want] of cases) t.equal(canonicalIP(input), want, JSON.stringify(input));
  t.ok(isV4(parseIP('::ffff:1.2.3.4')!));
  t.notOk(isV4(parseIP('::1.2.3.4')!));
  const hex = (s: string) => Buffer.from(parseIP(s)!).toString('hex');
  t.equal(hex('::'), '0'.repeat(32));
  t.equal(hex('2001:DB8:0:0:1:0:0:1'), '20010db8000000000001000000000001');
  t.equal(hex('::ffff:192.0.2.1'), '00000000000000000000ffffc0000201');
  t.equal(hex('10.1.2.3'), '00000000000000000000ffff0a010203', 'IPv4 is stored IPv4-mapped');
});

t.test('formatIP takes 16 bytes or the 4 of an IPv4 address, like Go', async (t) => {
  t.equal(formatIP(Uint8Array.from([127, 0, 0, 1])), '127.0.0.1');
  t.throws(() => formatIP(new Uint8Array(5)), TypeError);
});

t.test('CIDRs keep host bits and print like Go net.IPNet.String', async (t) => {
  const cases: [string, string | undefined][] = [
    ['10.1.0.5/16', '10.1.0.5/16'],
    ['10.1.0.5/32', '10.1.0.5/32'],
    ['10.1.0.5/33', undefined],
    ['10.1.0.5', undefined],
    ['10.1.0.5/', undefined],
    ['10.1.0.5/x', undefined],
    ['2001:DB8::5/64', '2001:db8::5/64'],
    ['2001:db8::5/129', undefined],
    ['::ffff:10.0.0.1/120', '10.0.0.1/24'], // the mask is cut to its IPv4 part
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['::/0', '::/0'],
    ['10.1.2.3/-1', undefined],
    ['x/24', undefined],
    ['10.1.2.3/0024', '10.1.2.3/24'], // Go's dtoi reads leading zeros
  ];
  for (const [input, want] of cases) t.equal(canonicalCIDR(input), want, input);
});

t.test('CIDRs as written: the prefix and mask length of the written family', async (t) => {
  const w = (s: string) => {
    const c = parseCIDRAsWritten(s);
    return c && { ip: formatIP(c.ip), ones: c.ones, bits: c.bits };
  };
  t.same(w('10.1.2.3/24'), { ip: '10.1.2.3', ones: 24, bits: 32 });
  t.same(w('fd00::2/64'), { ip: 'fd00::2', ones: 64, bits: 128 });
  t.same(w('::ffff:10.0.0.1/120'), { ip: '10.0.0.1', ones: 120, bits: 128 }, 'IPv4-mapped keeps its 128-bit mask');
  t.same(w('::ffff:10.0.0.1/90'), { ip: '10.0.0.1', ones: 90, bits: 128 });
  for (const bad of ['10.1.2.3', '10.1.2.3/33', '::1/129', '10.1.2.3/', '10.1.2.3/2a', '10.1.2.3/24/24']) t.equal(parseCIDRAsWritten(bad), undefined, bad);
});
