// Expected bytes are what iproute2 6.1 sends for the same command, captured with
// `strace -f -e trace=sendmsg -e write=3` in a throwaway netns (hv0 ifindex 3, bwptest 5),
// less the 16-byte nlmsghdr (its length, flags and sequence number are the socket's business).
import t from 'tap';
import { encodeNewIfb } from './ifb-msg.ts';
import { encodeDelTbfQdisc, encodeGetQdisc, encodeIngressQdisc, encodeRedirectFilter, encodeTbfQdisc } from './tc-msg.ts';

const hex = (b: Buffer): string => b.toString('hex');
const RTAB_ATTR = 4 + 1024;

/** tc's message without nlmsghdr, with `cut` bytes of rate table removed at the end of TCA_OPTIONS. */
function tcBody(captured: string, optionsCut = 0): string {
  const b = Buffer.from(captured, 'hex').subarray(16);
  if (optionsCut === 0) return hex(b);
  // TCA_OPTIONS is the second attribute after the 20-byte tcmsg and the 8-byte TCA_KIND "tbf\0".
  const opts = 20 + 8;
  const head = Buffer.from(b.subarray(0, b.length - optionsCut));
  head.writeUInt16LE(head.readUInt16LE(opts) - optionsCut, opts);
  return hex(head);
}

t.test('tbf: `tc qdisc add dev hv0 root handle 1: tbf rate 1250000bps burst 12500 limit 43750`', async (t) => {
  const tc =
    '640400002400050690090469' +
    '00000000' +
    '000000000300000000000100ffffffff00000000' +
    '0800010074626600' +
    '38040200' +
    '2800010003010000ffff0000d0121300000000000000000000000000e6aa00005a62020000000000' +
    '08000600d4300000' +
    '04040200' +
    '00'.repeat(1024);
  const ours = encodeTbfQdisc(3, { rate: 1250000n, limit: 43750, buffer: 156250, burst: 12500 });
  t.equal(hex(ours), tcBody(tc, RTAB_ATTR), 'tcmsg, TCA_KIND, TCA_TBF_PARMS and TCA_TBF_BURST as tc sends them; no rate table');
  const noBurst = encodeTbfQdisc(3, { rate: 1250000n, limit: 43750, buffer: 156250 });
  t.equal(noBurst.length, ours.length - 8, 'TCA_TBF_BURST only when asked');
});

t.test('tbf above 4 GB/s: rate 5000000000bps burst 1000000 limit 126000000 → u32 rate saturated, TCA_TBF_RATE64', async (t) => {
  const tc =
    '700400002400050690090469' +
    '00000000' +
    '000000000500000000000100ffffffff00000000' +
    '0800010074626600' +
    '44040200' +
    '2800010003010000ffff0000ffffffff000000000000000000000000809b8207290e000000000000' +
    '0800060040420f00' +
    '0c00040000f2052a01000000' +
    '04040200' +
    '00'.repeat(1024);
  const ours = encodeTbfQdisc(5, { rate: 5000000000n, limit: 126000000, buffer: 3625, burst: 1000000 });
  t.equal(hex(ours), tcBody(tc, RTAB_ATTR));
});

t.test('ingress: `tc qdisc add dev hv0 handle ffff: ingress`; the same bytes delete it', async (t) => {
  const add = '30000000240005069009046b0000000000000000030000000000fffff1ffffff000000000c000100696e677265737300';
  const del = '30000000250005009009046b0000000000000000030000000000fffff1ffffff000000000c000100696e677265737300';
  t.equal(hex(encodeIngressQdisc(3)), tcBody(add));
  t.equal(hex(encodeIngressQdisc(3)), tcBody(del));
});

t.test('root tbf delete: `tc qdisc del dev hv0 root handle 1:` with the TCA_KIND of `tc qdisc add … tbf`', async (t) => {
  // tc will not send a kind on delete without tbf options; the kernel then checks the kind.
  const delRoot = tcBody('24000000250005009009046b00000000000000000300000000000000ffffffff00000000');
  const withHandle = delRoot.slice(0, 16) + '00000100' + delRoot.slice(24);
  t.equal(hex(encodeDelTbfQdisc(3)), withHandle + '0800010074626600');
});

t.test('qdisc get: the tcmsg of `tc qdisc del dev hv0 root` / `… ingress` without kind', async (t) => {
  t.equal(hex(encodeGetQdisc(3, 0xffffffff)), tcBody('24000000250005009009046b00000000000000000300000000000000ffffffff00000000'));
  t.equal(hex(encodeGetQdisc(3, 0xfffffff1)), '000000000300000000000000f1ffffff00000000');
});

t.test(
  'u32 match-all with mirred egress redirect: `tc filter add dev hv0 parent ffff: protocol all prio 1 u32 match u32 0 0 action mirred egress redirect dev bwptest`',
  async (t) => {
    const tc =
      '8c0000002c0005069009046b00000000' +
      '000000000300000000000000' +
      '0000ffff' +
      '00030100' +
      '0800010075333200' +
      '60000200' +
      '380007003400010' +
      '00b0001006d69727265640000' +
      '24000280' +
      '2000020000000000000000000400000000000000000000000100000005000000' +
      '24000500' +
      '0100010000000000000000000000000000000000000000000000000000000000';
    t.equal(hex(encodeRedirectFilter(3, 5)), tcBody(tc));
  },
);

t.test('ifb: `ip link add bwptest mtu 1400 txqueuelen 1000 up type ifb`', async (t) => {
  const ip = '48000000100005068f09046b0000000000000000000000000100000001000000080004007805000008000d00e80300000c00030062777074657374000c0012000700010069666200';
  t.equal(hex(encodeNewIfb({ name: 'bwptest', mtu: 1400, txqlen: 1000 })), tcBody(ip));
  t.equal(encodeNewIfb({ name: 'bwptest', mtu: 1400 }).length, 16 + 8 + 12 + 12, 'no IFLA_TXQLEN when not given');
});
