// Expected values: the reference's own test vectors (bandwidth_linux_test.go: rate and limit),
// and `tc -j -raw qdisc show` of what Debian's Go bandwidth plugin set on this kernel for the
// same inputs (burst_raw is the buffer in ticks, hex). None is computed by the code under test.
import t from 'tap';
import { parsePsched, planTbf, referenceBufferTicks, referenceLimit, tbfInputFromBits } from './tbf-math.ts';

// /proc/net/psched of any kernel since 2.6.31 with high-resolution timers: 1000/64 = 15.625.
const PSCHED = '000003e8 00000040 000f4240 3b9aca00\n';
const TICK = 15.625;

t.test('psched clock: ticks per microsecond', async (t) => {
  t.equal(parsePsched(PSCHED), 15.625);
  // an old kernel with a microsecond clock: t2us/us2t × clock_res/1e6
  t.equal(parsePsched('00000001 00000001 000f4240 00000064'), 1);
  t.throws(() => parsePsched('garbage'));
});

const bits = (rate: number | bigint, burst: number | bigint) => tbfInputFromBits(BigInt(rate), BigInt(burst));

t.test("the reference's test vectors: (8 b/s, 8 b), (16, 8), (8000, 80)", async (t) => {
  t.match(planTbf(bits(8, 8), TICK), { rate: 1n, limit: 1 });
  t.match(planTbf(bits(16, 8), TICK), { rate: 2n, limit: 1 });
  t.match(planTbf(bits(8000, 80), TICK), { rate: 1000n, limit: 35 });
});

// [rateBits, burstBits, rate B/s, burst_raw (ticks), limit] from the Go plugin's tbf on this machine
const GO_TABLE: [number | bigint, number | bigint, bigint, number, number][] = [
  [8000, 80, 1000n, 0x2625a, 35],
  [10_000_000, 1_000_000, 1_250_000n, 0x17d784, 156_250],
  // 10000 bytes at 3 MB/s is 3333.3 µs: the reference truncates the µs before the ticks
  [24_000_000, 80_000, 3_000_000n, 0xcb6e, 85_000],
  [100_000_000, 800_000, 12_500_000n, 0x1e848, 412_500],
  // above 4 GB/s: the rate needs TCA_TBF_RATE64
  [40_000_000_000n, 8_000_000, 5_000_000_000n, 0xc35, 126_000_000],
  [80_000_000_000n, 8_000_000, 10_000_000_000n, 0x61a, 251_000_000],
];

t.test('as the Go plugin sets them: rate, buffer ticks, limit', async (t) => {
  for (const [rate, burst, rateB, ticks, limit] of GO_TABLE) {
    const q = planTbf(bits(rate, burst), TICK);
    t.same(q, { rate: rateB, buffer: ticks, limit }, `${rate} b/s, ${burst} b: no TCA_TBF_BURST needed`);
  }
});

t.test("where the reference's 32-bit casts wrap, we keep 64 bits and send the bucket in bytes", async (t) => {
  // containerd's sentinel at 10 Mbit/s: 536870911 bytes is 429.5 s at the rate, 6.7e9 ticks.
  // The Go plugin sent buffer 0x8fffffe7 (= 6710886375 mod 2^32), limit 536902161.
  const sentinel = bits(10_000_000, 4_294_967_295);
  t.equal(referenceBufferTicks(sentinel.rateBytes, sentinel.burstBytes, TICK), 0x8fffffe7, 'the reference wraps');
  t.equal(referenceLimit(sentinel.rateBytes, sentinel.burstBytes), 536_902_161);
  // `tc qdisc add … tbf rate 1250000bps burst 536870911 limit 536902161` (which sends
  // TCA_TBF_BURST) leaves buffer 0x8ffffff3 in the kernel: the ticks of 429.4967288 s, wrapped.
  t.same(planTbf(sentinel, TICK), { rate: 1_250_000n, limit: 536_902_161, buffer: 0x8ffffff3, burst: 536_870_911 });
  // 1 Mbit/s with a 50 MB bucket: the Go plugin sent 0x74876e80 ticks (the kernel then holds
  // 15.6 MB); `tc qdisc add … tbf rate 125000bps burst 50000000 limit 50003125` sends the same
  // ticks plus TCA_TBF_BURST 50000000, as we do.
  t.same(planTbf(bits(1_000_000, 400_000_000), TICK), { rate: 125_000n, limit: 50_003_125, buffer: 0x74876e80, burst: 50_000_000 });
  // the dockershim sentinel (2^31 − 1 bits) at 10 Mbit/s still fits: Go set 0xc7fffff3, limit 268466705
  t.same(planTbf(bits(10_000_000, 2_147_483_647), TICK), { rate: 1_250_000n, limit: 268_466_705, buffer: 0xc7fffff3 });
});

t.test('a limit past 4 GiB saturates instead of wrapping', async (t) => {
  // 200 GB/s × 25 ms = 5e9 bytes
  const q = planTbf({ rateBytes: 200_000_000_000n, burstBytes: 1_000_000 }, TICK);
  t.equal(q.limit, 0xffffffff);
  t.equal(referenceLimit(200_000_000_000n, 1_000_000), (5_000_000_000 + 1_000_000) % 2 ** 32, 'the reference wraps');
});

t.test('zero rate or burst is refused', async (t) => {
  t.throws(() => planTbf({ rateBytes: 0n, burstBytes: 10 }, TICK), RangeError);
  t.throws(() => planTbf({ rateBytes: 10n, burstBytes: 0 }, TICK), RangeError);
});
