// Reading the network configuration from stdin, and validating a plugin's view of it.
import type * as z from 'zod/mini';
import { CniError, ErrorCode } from './errors.ts';
import { excessNesting } from './json-depth.ts';
import type { NamedSchema } from './named-schema.ts';
import { quickRead, validate } from './schema.ts';

/** JSON.parse with skel's error for bad JSON (code 6). Anything but an object is refused too. */
export function decodeConfig(stdin: Buffer | string): Record<string, unknown> {
  const text = typeof stdin === 'string' ? stdin : stdin.toString('utf8');
  const tooDeep = excessNesting(text);
  if (tooDeep !== undefined) throw new CniError(ErrorCode.DecodingFailure, `error unmarshall network config: ${tooDeep}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CniError(ErrorCode.DecodingFailure, `error unmarshall network config: ${(err as Error).message}`, undefined, { cause: err });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    const got = raw === null ? 'null' : Array.isArray(raw) ? 'an array' : `a ${typeof raw}`;
    throw new CniError(ErrorCode.DecodingFailure, `error unmarshall network config: expected a JSON object, got ${got}`);
  }
  return raw as Record<string, unknown>;
}

/**
 * Validates `raw` against a zod/mini schema after matching keys case-insensitively at every
 * level the schema describes (Go's decoder does; real configs say "RuntimeConfig"). Unknown
 * keys are dropped by z.object, and a JSON null counts as absent unless the field is nullable.
 * All failing fields are reported in one CniError code 7, one "path: problem" per field in
 * `details`, joined by "; ". A named schema is built only when its quick reading gives up
 * (quick-parse.ts).
 *
 * `where` names what was parsed, for the message: "invalid <where>".
 */
export function parseWithSchema<S extends z.core.$ZodType>(schema: S | NamedSchema<S>, raw: unknown, where = 'network config'): z.output<S> {
  const r = typeof schema === 'function' ? quickRead(schema, raw) : validate(schema, raw);
  if (r.ok) return r.value;
  throw new CniError(ErrorCode.InvalidNetworkConfig, `invalid ${where}`, r.problems.join('; '));
}
