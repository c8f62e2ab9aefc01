// tbf parameters from a rate and a bucket, with the reference plugin's arithmetic
// (plugins/meta/bandwidth/ifb_creator.go at v1.9.0: createTBF, buffer, limit, time2Tick) and
// the kernel's psched clock (/proc/net/psched, read the way vishvananda/netlink's initClock
// and iproute2's tc_core_init do). Pure: the clock is a parameter.
//
// The reference computes in float64 and casts to uint32 at each step. Where a value still fits
// 32 bits we get the same bits (JS numbers are float64 too, same operations, same order); where
// the reference's cast would wrap (a bucket of more than ~275 s at the rate, a limit past 4 GiB),
// we keep the 64-bit value, send the bucket in bytes as TCA_TBF_BURST (the kernel then sizes its
// bucket from it, in 64 bits) and saturate the limit.
import type { TbfQopt } from './tc-msg.ts';

const TIME_UNITS_PER_SEC = 1_000_000;
const LATENCY_MS = 25;
const U32 = 2 ** 32;

/** The psched clock's ticks per microsecond, from the text of /proc/net/psched. */
export function parsePsched(text: string): number {
  const parts = text
    .trim()
    .split(/\s+/)
    .map((p) => Number.parseInt(p, 16));
  if (parts.length < 3 || parts.slice(0, 3).some((v) => !Number.isFinite(v) || v <= 0)) {
    throw new Error(`unexpected /proc/net/psched contents: ${JSON.stringify(text)}`);
  }
  const [t2usRead, us2t, clockRes] = parts as [number, number, number];
  // A 1 GHz clock resolution means the kernel's ns clock: t2us is then the us2t value (tc_core.c).
  const t2us = clockRes === 1_000_000_000 ? us2t : t2usRead;
  const clockFactor = clockRes / TIME_UNITS_PER_SEC;
  return (t2us / us2t) * clockFactor;
}

/** Go's uint32(float64) on amd64: truncate toward zero through int64, keep the low 32 bits. */
function goUint32(f: number): number {
  const t = Math.trunc(f);
  return t >= 0 && t < U32 ? t : Number(BigInt.asUintN(32, BigInt(t)));
}

/** The rate, bucket and queue of one direction, in bytes: what the user asked for, resolved. */
export interface TbfInput {
  /** bytes per second (> 0) */
  rateBytes: bigint;
  /** bucket size in bytes (> 0, < 2^32 − 1: the config validation guarantees it) */
  burstBytes: number;
}

/** A tbf as the reference configures it for ratebits/burstbits: rate/8 and burst/8 bytes. */
export function tbfInputFromBits(rateBits: bigint, burstBits: bigint): TbfInput {
  return { rateBytes: rateBits / 8n, burstBytes: Number(burstBits / 8n) };
}

/** The reference's bucket in ticks: time2Tick(uint32(burst * 1e6 / rate)), each cast as Go does. */
export function referenceBufferTicks(rateBytes: bigint, burstBytes: number, tickInUsec: number): number {
  return goUint32(goUint32((burstBytes * TIME_UNITS_PER_SEC) / Number(rateBytes)) * tickInUsec);
}

/** The reference's queue limit: uint32(rate * 25 ms) + burst, in uint32 arithmetic. */
export function referenceLimit(rateBytes: bigint, burstBytes: number): number {
  const latency = TIME_UNITS_PER_SEC * (LATENCY_MS / 1000.0);
  return (goUint32((Number(rateBytes) * latency) / TIME_UNITS_PER_SEC) + burstBytes) % U32;
}

/**
 * The same bucket in 64 bits, without the reference's truncation to whole microseconds: past
 * 32 bits the kernel derives the ticks from the bytes (TCA_TBF_BURST) at nanosecond precision.
 */
function bufferTicks64(rateBytes: bigint, burstBytes: number, tickInUsec: number): number {
  return Math.trunc(((burstBytes * TIME_UNITS_PER_SEC) / Number(rateBytes)) * tickInUsec);
}

/**
 * The tbf options for a rate and bucket: exactly the reference's values while they fit their
 * 32-bit fields; past that, the bucket travels in bytes (TCA_TBF_BURST) and the limit saturates.
 * `buffer` is then the 64-bit tick count's low 32 bits, which is what the kernel reports back.
 */
export function planTbf(input: TbfInput, tickInUsec: number): TbfQopt {
  const { rateBytes, burstBytes } = input;
  if (rateBytes <= 0n || burstBytes <= 0) throw new RangeError(`tbf needs a positive rate and burst (rate ${rateBytes} B/s, burst ${burstBytes} B)`);
  const ticks = bufferTicks64(rateBytes, burstBytes, tickInUsec);
  const limit64 = Math.trunc((Number(rateBytes) * LATENCY_MS) / 1000) + burstBytes;
  const limit = limit64 >= U32 ? U32 - 1 : referenceLimit(rateBytes, burstBytes);
  if (ticks < U32 - 1) return { rate: rateBytes, limit, buffer: referenceBufferTicks(rateBytes, burstBytes, tickInUsec) };
  return { rate: rateBytes, limit, buffer: ticks % U32, burst: burstBytes };
}
