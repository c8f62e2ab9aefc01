// Spec versions and the reference's version arithmetic (pkg/version): a version is up to
// three integer parts, missing parts are 0, and an empty string means 0.1.0.
import { CniError, ErrorCode } from './errors.ts';

export const ALL_VERSIONS = ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;
export type CniVersion = (typeof ALL_VERSIONS)[number];

/** The version a config without `cniVersion` is read as (skel's ConfigDecoder). */
export const DEFAULT_VERSION: CniVersion = '0.1.0';
/** What VERSION reports and what a result without `cniVersion` is taken to be (types100). */
export const CURRENT_VERSION: CniVersion = '1.1.0';

export function isCniVersion(v: unknown): v is CniVersion {
  return typeof v === 'string' && (ALL_VERSIONS as readonly string[]).includes(v);
}

const INT = /^[+-]?\d+$/; // what Go's strconv.Atoi accepts

function parseVersion(v: string): [number, number, number] {
  if (v === '') return [0, 1, 0];
  const parts = v.split('.');
  if (parts.length >= 4) {
    throw new CniError(ErrorCode.DecodingFailure, `invalid version ${JSON.stringify(v)}: too many parts`);
  }
  const names = ['major', 'minor', 'micro'];
  const out: [number, number, number] = [0, 0, 0];
  parts.forEach((p, i) => {
    if (!INT.test(p)) {
      throw new CniError(
        ErrorCode.DecodingFailure,
        `failed to convert ${names[i]} version part ${JSON.stringify(p)}: strconv.Atoi: parsing ${JSON.stringify(p)}: invalid syntax`,
      );
    }
    out[i] = Number(p);
  });
  return out;
}

/**
 * Negative, zero or positive like a comparator. Throws CniError code 6 on a version the
 * reference cannot parse (skel reports those as decoding failures).
 */
export function compareVersions(a: string, b: string): number {
  const pa = parseVersion(a);
  const pb = parseVersion(b);
  for (let i = 0; i < 3; i++) {
    const d = (pa[i] as number) - (pb[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** Result struct families of the reference: types/020, types/040, types/100. */
export type ResultFamily = '020' | '040' | '100';

export function resultFamily(v: string): ResultFamily | undefined {
  switch (v) {
    case '':
    case '0.1.0':
    case '0.2.0':
      return '020';
    case '0.3.0':
    case '0.3.1':
    case '0.4.0':
      return '040';
    case '1.0.0':
    case '1.1.0':
      return '100';
    default:
      return undefined;
  }
}

export const FAMILY_VERSIONS: Record<ResultFamily, readonly string[]> = {
  '020': ['0.1.0', '0.2.0'],
  '040': ['0.3.0', '0.3.1', '0.4.0'],
  '100': ['1.0.0', '1.1.0'],
};
