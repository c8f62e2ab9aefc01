import t from 'tap';
import { formatMac, isUnicastMac, parseMac } from './mac.ts';

t.test('the EUI-48 forms Go accepts', async (t) => {
  for (const s of ['0A:58:0a:00:00:05', '0a-58-0a-00-00-05', '0a58.0a00.0005']) t.equal(formatMac(parseMac(s)), '0a:58:0a:00:00:05', s);
  for (const s of ['', '0a:58:0a:00:00', '0a:58:0a:00:00:05:06', '0a:58-0a:00:00:05', 'zz:58:0a:00:00:05', '00:00:5e:00:53:01:00:00'])
    t.equal(parseMac(s), undefined, s);
});

t.test('unicast: not multicast, not zero', async (t) => {
  t.ok(isUnicastMac(parseMac('0a:58:0a:00:00:05')!));
  t.notOk(isUnicastMac(parseMac('01:00:5e:00:00:01')!));
  t.notOk(isUnicastMac(parseMac('00:00:00:00:00:00')!));
});

t.test('formatMac', async (t) => {
  t.equal(formatMac(Buffer.from([0xaa, 0x0b, 0, 0xff, 1, 2])), 'aa:0b:00:ff:01:02');
  t.equal(formatMac(undefined), '', 'a link without a hardware address');
});
