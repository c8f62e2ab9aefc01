// Key folding driven by a zod/mini schema: the schema says which keys exist at each level, and
// the raw config's keys are renamed to those spellings before the schema validates it.
import type * as z from 'zod/mini';
import { isPlainObject, matchKeys } from './fold.ts';

// The parts of a zod schema definition read here and by quick-shape.ts; zod/mini shares core's defs.
export interface ZodDef {
  type: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  element?: Schema;
  innerType?: Schema;
  in?: Schema;
  out?: Schema;
  options?: readonly Schema[];
  keyType?: Schema;
  valueType?: Schema;
  items?: readonly Schema[];
  rest?: Schema | null;
  left?: Schema;
  right?: Schema;
  getter?: () => Schema;
  transform?: (...args: never[]) => unknown;
  checks?: readonly unknown[];
  check?: string;
  format?: string;
}
type Schema = z.core.$ZodType;
export const def = (s: Schema): ZodDef => s._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

/** The schema that actually reads the value: wrappers, pipes and lazies looked through. */
function unwrap(s: Schema): Schema {
  for (;;) {
    const d = def(s);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else return s;
  }
}

/** Whether a field accepts JSON null; if not, null means "absent" as it does for Go. */
function acceptsNull(s: Schema): boolean {
  for (;;) {
    const d = def(s);
    if (d.type === 'nullable' || d.type === 'null' || d.type === 'any' || d.type === 'unknown') return true;
    if (d.type === 'union') return (d.options ?? []).some(acceptsNull);
    if (WRAPPERS.has(d.type) && d.innerType) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else if (d.type === 'lazy' && d.getter) s = d.getter();
    else return false;
  }
}

function foldObject(d: ZodDef, raw: Record<string, unknown>): Record<string, unknown> {
  const shape = d.shape ?? {};
  const matched = matchKeys(raw, Object.keys(shape));
  const used = new Set(matched.values());
  const out: Record<string, unknown> = {};
  // Keys no field claims stay as they are: a loose object or catchall may want them.
  for (const [k, v] of Object.entries(raw)) {
    if (!used.has(k)) out[k] = d.catchall ? foldBySchema(d.catchall, v) : v;
  }
  for (const [key, src] of matched) {
    const field = shape[key] as Schema;
    const v = raw[src];
    if (v === null && !acceptsNull(field)) continue;
    out[key] = foldBySchema(field, v);
  }
  return out;
}

/**
 * Renames keys of `value` to the spelling `schema` declares, at every nesting level the
 * schema describes (objects, arrays, tuples, records, unions, intersections, wrappers).
 * Values are never validated here; the schema does that afterwards.
 */
export function foldBySchema(schema: Schema, value: unknown): unknown {
  const s = unwrap(schema);
  const d = def(s);
  switch (d.type) {
    case 'object':
      return isPlainObject(value) ? foldObject(d, value) : value;
    case 'array':
      return Array.isArray(value) && d.element ? value.map((v) => foldBySchema(d.element as Schema, v)) : value;
    case 'tuple':
      if (!Array.isArray(value)) return value;
      return (value as unknown[]).map((v, i) => {
        const item = d.items?.[i] ?? d.rest;
        return item ? foldBySchema(item, v) : v;
      });
    case 'record':
      if (!isPlainObject(value) || !d.valueType) return value;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, foldBySchema(d.valueType as Schema, v)]));
    case 'intersection':
      return d.left && d.right ? foldBySchema(d.right, foldBySchema(d.left, value)) : value;
    case 'union':
      return foldUnion(d.options ?? [], value);
    default:
      return value;
  }
}

// The option the value is meant for is unknown before folding: take the first option whose
// folded value validates, else fold with the first option of the right JSON kind.
function jsonKind(s: Schema): string {
  const t = def(unwrap(s)).type;
  return t === 'object' || t === 'record' ? 'object' : t === 'array' || t === 'tuple' ? 'array' : 'scalar';
}

function foldUnion(options: readonly Schema[], value: unknown): unknown {
  const kind = Array.isArray(value) ? 'array' : isPlainObject(value) ? 'object' : 'scalar';
  if (kind === 'scalar') return value;
  const candidates = options.filter((o) => jsonKind(o) === kind);
  if (candidates.length > 1) {
    for (const o of candidates) {
      const folded = foldBySchema(o, value);
      const r = o['~standard'].validate(folded);
      if (!(r instanceof Promise) && !r.issues) return folded;
    }
  }
  const first = candidates[0];
  return first ? foldBySchema(first, value) : value;
}
