// The bandwidth plugin's configuration (reference: plugins/meta/bandwidth/main.go at v1.9.0,
// parseConfig/getBandwidth/validateRateAndBurst), validated before anything touches the host.
//
// The four keys at the top level win over runtimeConfig.bandwidth as soon as one of them is
// present, even when they are invalid (the reference's embedded-struct rule). A burst that
// arrives through the capability as one of the runtimes' "no burst given" sentinels is treated
// as unset and sized from the rate at ADD (burst-plan.ts), unless `referenceBurst: true`.
import * as z from 'zod/mini';
import { CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest } from '../../lib/cni-spec/index.ts';

/** containerd's CRI (2^32 − 1) and kubelet's dockershim (2^31 − 1) pass these as "no burst". */
export const RUNTIME_BURST_SENTINELS: readonly number[] = [4294967295, 2147483647];

/** One shaped direction. */
export interface Shaping {
  /** bytes per second (the config's bits/s divided by 8, as the reference does) */
  readonly rateBytes: bigint;
  /** the bucket in bytes; 'from-rate' for a runtime sentinel: sized at ADD from rate and MTU */
  readonly burst: number | 'from-rate';
}

export interface BandwidthConf {
  readonly network: string;
  /** traffic into the container: tbf on the host veth */
  readonly ingress?: Shaping;
  /** traffic out of the container: tbf on the ifb */
  readonly egress?: Shaping;
  /** where the values came from (for messages and tests) */
  readonly source: 'static' | 'runtimeConfig' | 'none';
}

const KEYS = ['ingressRate', 'ingressBurst', 'egressRate', 'egressBurst'] as const;

function buildSchema() {
  // Numbers are checked below, so each problem can name its field in the reference's words.
  const n = z.optional(z.number());
  const entry = { ingressRate: n, ingressBurst: n, egressRate: n, egressBurst: n };
  return z.object({
    ...entry,
    referenceBurst: z.optional(z.boolean()),
    runtimeConfig: z.optional(z.object({ bandwidth: z.optional(z.object(entry)) })),
  });
}

/** bandwidth's own fields (the shared ones are checked by the dispatcher); the bad-input generator derives its cases from it. */
export const bandwidthConfSchema = namedSchema('bandwidth', buildSchema);
type Entry = { [K in (typeof KEYS)[number]]?: number | undefined };

interface Problem {
  field: string;
  msg: string;
}

const MAX_BURST_BYTES = 2 ** 32 - 1;
/** The reference decodes rates and bursts into uint64: from 2^64 on they do not fit. */
const UINT64_LIMIT = 2 ** 64;
/** The bucket a runtime sentinel gets is at least 10 ms of traffic, at most the 32-bit TCA_TBF_BURST (burst-plan.ts). */
const fromRateBucketFloor = (rateBytes: bigint): bigint => {
  const tenMs = (rateBytes + 99n) / 100n;
  return tenMs < 0xfffffffen ? tenMs : 0xfffffffen;
};

/** validateRateAndBurst of the reference, naming the field at fault. */
function validateDirection(prefix: string, dir: 'ingress' | 'egress', rate: number, burst: number): Problem | undefined {
  if (burst === 0 && rate !== 0) return { field: `${prefix}${dir}Burst`, msg: 'if rate is set, burst must also be set' };
  if (rate === 0 && burst !== 0) return { field: `${prefix}${dir}Rate`, msg: 'if burst is set, rate must also be set' };
  if (Math.floor(burst / 8) >= MAX_BURST_BYTES) return { field: `${prefix}${dir}Burst`, msg: 'burst cannot be more than 4GB' };
  // Less than a byte is zero bytes for tbf: the reference hands the kernel a zero rate or bucket.
  if (rate > 0 && rate < 8) return { field: `${prefix}${dir}Rate`, msg: 'rate must be at least 8 bits/s' };
  if (burst > 0 && burst < 8) return { field: `${prefix}${dir}Burst`, msg: 'burst must be at least 8 bits' };
  return undefined;
}

/**
 * tbf keeps its bucket as a time at the rate, in whole microseconds before it becomes psched
 * ticks (the reference's buffer()): a bucket that drains in under 1 µs is 0, and the kernel
 * refuses the qdisc (EINVAL) after the ifb was made. Reachable only with absurd rates (more
 * than 10^6 times the burst, e.g. 2^63 bits/s): refused here, naming the field at fault.
 */
function checkBucketTime(prefix: string, dir: 'ingress' | 'egress', rateBytes: bigint, burst: number | 'from-rate'): Problem | undefined {
  const bucket = burst === 'from-rate' ? fromRateBucketFloor(rateBytes) : BigInt(burst);
  if (bucket * 1_000_000n >= rateBytes) return undefined;
  const need = `at ${rateBytes * 8n} bits/s the bucket must hold at least 1 µs of traffic (${((rateBytes + 999_999n) / 1_000_000n) * 8n} bits)`;
  return burst === 'from-rate'
    ? { field: `${prefix}${dir}Rate`, msg: `rate is too high for tbf: ${need}` }
    : { field: `${prefix}${dir}Burst`, msg: `burst is too small for the rate: ${need}` };
}

function checkNumber(prefix: string, key: string, v: number | undefined): Problem | undefined {
  if (v === undefined) return undefined;
  if (!Number.isInteger(v) || v < 0) return { field: `${prefix}${key}`, msg: `${key} must be a non-negative integer (got ${v})` };
  if (v >= UINT64_LIMIT) return { field: `${prefix}${key}`, msg: `${key} must be less than 2^64 (got ${v})` };
  return undefined;
}

export function loadConf(req: CniRequest): BandwidthConf {
  return timed('config', () => parseConf(req));
}

function parseConf(req: CniRequest): BandwidthConf {
  const raw = parseWithSchema(bandwidthConfSchema, req.config);
  const isStatic = KEYS.some((k) => raw[k] !== undefined);
  const runtime = raw.runtimeConfig?.bandwidth;
  const entry: Entry | undefined = isStatic ? raw : runtime;
  const source = isStatic ? 'static' : runtime ? 'runtimeConfig' : 'none';
  const prefix = source === 'runtimeConfig' ? 'runtimeConfig.bandwidth.' : '';
  const out = { network: req.name, source } as { -readonly [K in keyof BandwidthConf]: BandwidthConf[K] };
  if (!entry) return Object.freeze(out);

  const problems: Problem[] = [];
  for (const k of KEYS) {
    const p = checkNumber(prefix, k, entry[k]);
    if (p) problems.push(p);
  }
  const sentinels = source === 'runtimeConfig' && raw.referenceBurst !== true;
  for (const dir of ['ingress', 'egress'] as const) {
    if (problems.length > 0) break;
    const rate = entry[`${dir}Rate`] ?? 0;
    let burst: number | 'from-rate' = entry[`${dir}Burst`] ?? 0;
    if (sentinels && RUNTIME_BURST_SENTINELS.includes(burst)) burst = rate === 0 ? 0 : 'from-rate';
    const p = validateDirection(prefix, dir, rate, burst === 'from-rate' ? 8 : burst);
    if (p) problems.push(p);
    else if (rate > 0) {
      const shaping: Shaping = { rateBytes: BigInt(rate) / 8n, burst: burst === 'from-rate' ? burst : Math.floor(burst / 8) };
      const tooShort = checkBucketTime(prefix, dir, shaping.rateBytes, shaping.burst);
      if (tooShort) problems.push(tooShort);
      else out[dir] = Object.freeze(shaping);
    }
  }
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  return Object.freeze(out);
}

/** Nothing to shape: ADD passes prevResult through and does no netlink work. */
export const shapesNothing = (c: BandwidthConf): boolean => c.ingress === undefined && c.egress === undefined;
