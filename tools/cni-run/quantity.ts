// Kubernetes resource quantities ("10M", "1.5Gi", "100k", "1e6"), as the kubelet reads the
// kubernetes.io/ingress-bandwidth and egress-bandwidth annotations
// (https://github.com/kubernetes/apimachinery/blob/v0.31.0/pkg/api/resource/quantity.go):
// decimal suffixes are powers of 1000, binary ones of 1024, and Value() rounds up to an integer.

const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE])?$/;

export class QuantityError extends Error {}

/** The quantity's value as an integer, rounded up like Quantity.Value(). */
export function parseQuantity(text: string): bigint {
  const m = QUANTITY.exec(text.trim());
  if (!m) throw new QuantityError(`invalid quantity ${JSON.stringify(text)}: a number with an optional suffix (k, M, G, T, Ki, Mi, Gi, …)`);
  const [, sign = '', number = '', suffix = ''] = m;
  const [whole = '', frac = ''] = number.split('.');
  let num = BigInt(`${whole}${frac}` || '0');
  let den = 10n ** BigInt(frac.length);
  const exp10 = suffix in DECIMAL ? DECIMAL[suffix] : /^[eE]/.test(suffix) ? Number(suffix.slice(1)) : undefined;
  if (exp10 !== undefined) {
    if (exp10 >= 0) num *= 10n ** BigInt(exp10);
    else den *= 10n ** BigInt(-exp10);
  } else {
    num *= 2n ** BigInt(BINARY[suffix] ?? 0);
  }
  // Rounding up: a ceiling for positive values, truncation toward zero for negative ones.
  return sign === '-' ? -(num / den) : (num + den - 1n) / den;
}

// The kubelet refuses shaping outside these bounds (pkg/util/bandwidth, validateBandwidthIsReasonable).
const MIN_BITS = 1000n;
const MAX_BITS = 10n ** 15n;

/** A rate in bits per second, as the kubelet accepts it for the bandwidth annotations. */
export function parseBitRate(text: string): number {
  const v = parseQuantity(text);
  if (v < MIN_BITS) throw new QuantityError(`rate ${JSON.stringify(text)} is unreasonably small (< 1kbit)`);
  if (v > MAX_BITS) throw new QuantityError(`rate ${JSON.stringify(text)} is unreasonably large (> 1Pbit)`);
  return Number(v);
}
