import t from 'tap';
import { canonicalCIDR, canonicalIP, isV4, parseIP } from './ip.ts';

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
  ];
  for (const [input, want] of cases) t.equal(canonicalIP(input), want, JSON.stringify(input));
  t.ok(isV4(parseIP('::ffff:1.2.3.4')!));
  t.notOk(isV4(parseIP('::1.2.3.4')!));
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
  ];
  for (const [input, want] of cases) t.equal(canonicalCIDR(input), want, input);
});
