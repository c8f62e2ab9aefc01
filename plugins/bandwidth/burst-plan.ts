// The bucket for a direction, and its tbf options. Pure.
//
// A burst from a runtime sentinel (conf.ts) is sized from the rate:
//
//   burst = max(ceil(rate × 10 ms), MTU + 14)   bytes
//
// 10 ms of traffic at the rate is the bucket tc-tbf(8) asks for (rate / HZ with HZ = 100: the
// qdisc watchdog must be able to release a timer tick's worth of data at once, or the rate is
// not reached); one full Ethernet frame (MTU + 14-byte header) is the least tbf needs at any
// rate, else a full-size packet can never be sent. The reference takes the sentinel literally:
// 512 MiB for containerd's 2^32 − 1 bits, which passes the first minutes of a flow unshaped.
import { planTbf, type TbfQopt } from '../../lib/linux/index.ts';
import type { Shaping } from './conf.ts';

export const ETH_HLEN = 14;
const BUCKET_MS = 10n;

/** The bucket in bytes for a runtime sentinel: see the formula above. */
export function burstFromRate(rateBytes: bigint, mtu: number): number {
  const tenMs = (rateBytes * BUCKET_MS + 999n) / 1000n;
  const frame = BigInt(mtu + ETH_HLEN);
  const bytes = tenMs > frame ? tenMs : frame;
  // the TCA_TBF_BURST field is 32 bits; 10 ms reach it only above 3.4 Tbit/s
  return Number(bytes > 0xfffffffen ? 0xfffffffen : bytes);
}

/** The tbf for one direction on a link with this MTU. */
export function planShaping(s: Shaping, mtu: number, tickInUsec: number): TbfQopt {
  const burstBytes = s.burst === 'from-rate' ? burstFromRate(s.rateBytes, mtu) : s.burst;
  return planTbf({ rateBytes: s.rateBytes, burstBytes }, tickInUsec);
}
