// The sentinel formula (README, docs/divergences.md): max(ceil(rate × 10 ms), MTU + 14) bytes.
// Expected values worked out by hand from that formula.
import t from 'tap';
import { burstFromRate, planShaping } from './burst-plan.ts';

t.test('10 ms at the rate, at least one full frame', async (t) => {
  t.equal(burstFromRate(1_250_000n, 1500), 12_500, '10 Mbit/s: 12500 bytes');
  t.equal(burstFromRate(125_000n, 1500), 1514, '1 Mbit/s: 1250 < one 1514-byte frame');
  t.equal(burstFromRate(125_000n, 9000), 9014, 'jumbo MTU');
  t.equal(burstFromRate(1_250_000_000n, 1500), 12_500_000, '10 Gbit/s');
  t.equal(burstFromRate(1_000_001n, 1500), 10_001, 'rounded up');
});

t.test('the tbf for a sentinel at 10 Mbit/s: buffer 10 ms = 156250 ticks, limit 31250 + 12500', async (t) => {
  t.same(planShaping({ rateBytes: 1_250_000n, burst: 'from-rate' }, 1500, 15.625), { rate: 1_250_000n, limit: 43_750, buffer: 156_250 });
  t.same(planShaping({ rateBytes: 1000n, burst: 10 }, 1500, 15.625), { rate: 1000n, limit: 35, buffer: 156_250 });
});
