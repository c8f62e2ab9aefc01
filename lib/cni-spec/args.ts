// CNI_ARGS ("K1=V1;K2=V2") read with the reference's types.LoadArgs rules:
// https://github.com/containernetworking/cni/blob/v1.3.0/pkg/types/args.go
import { CniError, ErrorCode } from './errors.ts';
import { goQuote, goQuoteList } from './go-json.ts';

const IGNORE_UNKNOWN = 'IgnoreUnknown';

// In the reference these are plain Go errors returned from a plugin's config loading, and
// skel prints any untyped error as code 999 (ErrInternal); we print the same code.
const argsError = (msg: string): CniError => new CniError(ErrorCode.Internal, msg);

/**
 * The known keys' values (the last one wins when repeated). Keys match case-sensitively.
 * Unknown keys are an error unless IgnoreUnknown is 1/true (any case); its value must be a
 * boolean the reference understands wherever it appears. `IgnoreUnknown` itself is always
 * known and is included in the output when given.
 */
export function parseCniArgs(s: string, known: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (s === '') return out;
  const unknown: string[] = [];
  let ignoreUnknown = false;
  for (const pair of s.split(';')) {
    const kv = pair.split('=');
    if (kv.length !== 2) throw argsError(`ARGS: invalid pair ${goQuote(pair)}`);
    const [key, value] = kv as [string, string];
    if (key === IGNORE_UNKNOWN) {
      const v = value.toLowerCase();
      if (v !== '1' && v !== 'true' && v !== '0' && v !== 'false') {
        throw argsError(`ARGS: error parsing value of pair ${goQuote(pair)}: boolean unmarshal error: invalid input ${v}`);
      }
      ignoreUnknown = v === '1' || v === 'true';
      out[key] = value;
    } else if (known.includes(key)) {
      out[key] = value;
    } else {
      unknown.push(pair);
    }
  }
  if (unknown.length > 0 && !ignoreUnknown) throw argsError(`ARGS: unknown args ${goQuoteList(unknown)}`);
  return out;
}
