// The input is a kernel answer captured with strace (`tc qdisc show dev hv0` after
// `tc qdisc add dev hv0 root handle 1: tbf rate 1250000bps burst 12500 limit 43750`).
import t from 'tap';
import { decodeAttrs } from '../nl-codec.ts';
import { parseTbfOptions, toQdiscInfo } from './qdisc-parse.ts';

const DUMPED =
  'bc00000024000200d309046b1e630000' +
  '0000000003000000000001' +
  '00ffffffff03000000' +
  '08000100746266002c000200280001000001000000000000d0121300000000000000000000000000e6aa00005a62020000000000' +
  '05000c0000000000';

function raw(hex: string) {
  const b = Buffer.from(hex, 'hex').subarray(16);
  const attrs = decodeAttrs(b.subarray(20));
  const kind = attrs.find((a) => a.type === 1)?.value.toString('latin1');
  const options = attrs.find((a) => a.type === 2)?.value;
  return {
    data: { ifindex: b.readInt32LE(4), handle: b.readUInt32LE(8), parent: b.readUInt32LE(12) },
    attrs: { ...(kind !== undefined && { kind }), ...(options !== undefined && { options }) },
  };
}

t.test('a dumped tbf: handle 1:, root, rate/limit/buffer from tc_tbf_qopt', async (t) => {
  t.same(toQdiscInfo(raw(DUMPED)), { ifindex: 3, handle: 0x10000, parent: 0xffffffff, kind: 'tbf', tbf: { rate: 1250000n, limit: 43750, buffer: 156250 } });
});

t.test('TCA_TBF_RATE64 wins over the saturated 32-bit rate', async (t) => {
  const parms = Buffer.alloc(36);
  parms.writeUInt32LE(0xffffffff, 8);
  parms.writeUInt32LE(126000000, 24);
  parms.writeUInt32LE(3125, 28);
  const rate64 = Buffer.alloc(8);
  rate64.writeBigUInt64LE(5000000000n);
  const opts = Buffer.concat([Buffer.from([40, 0, 1, 0]), parms, Buffer.from([12, 0, 4, 0]), rate64]);
  t.same(parseTbfOptions(opts), { rate: 5000000000n, limit: 126000000, buffer: 3125 });
  t.equal(parseTbfOptions(Buffer.alloc(0)), undefined);
});
