// Reading a config by its shape (quick-shape.ts) without zod. It accepts only what the zod
// schema accepts and returns what zod would return, with the same key folding and JSON null
// handling as schema.ts (fold-schema.ts); on anything else (a wrong type, a failing transform,
// an opaque part, a key spelled in another case) it gives up, and the caller asks zod, whose
// answer and messages are the contract. Giving up is always safe; only acceptance must be exact
// (quick-parse.test.ts pins the rules; scripts/build/quick-shapes.test.ts compares the two on every
// named schema and the bad-input generator's configs).
import { isPlainObject, matchKeys } from './fold.ts';
import { transformNamed, type Shape } from './quick-shape.ts';

const GIVE_UP: unique symbol = Symbol('give up');

/** The value zod would return for `raw`, or undefined when only zod can tell. */
export function quickParse(shape: Shape, raw: unknown): { value: unknown } | undefined {
  const v = read(shape, raw);
  return v === GIVE_UP ? undefined : { value: v };
}

// Whether a field takes JSON null as a value; fold-schema.ts drops it as absent otherwise.
// undefined: only zod can tell.
function nullAllowed(s: Shape): boolean | undefined {
  switch (s.t) {
    case 'nullable':
    case 'unknown':
      return true;
    case 'optional':
      return nullAllowed(s.of);
    case 'opaque':
      return undefined;
    default:
      return false;
  }
}

// GIVE_UP, or the value zod would return.
function read(s: Shape, v: unknown): unknown {
  switch (s.t) {
    case 'string':
    case 'boolean':
      return typeof v === s.t ? v : GIVE_UP;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? v : GIVE_UP;
    case 'int':
      return Number.isSafeInteger(v) ? v : GIVE_UP;
    case 'unknown':
      return v;
    case 'optional':
      return v === undefined ? undefined : read(s.of, v);
    case 'nullable':
      return v === null ? null : read(s.of, v);
    case 'array':
      return Array.isArray(v) ? readAll(s.of, v) : GIVE_UP;
    case 'record':
      return isPlainObject(v) ? readRecord(s.of, v) : GIVE_UP;
    case 'object':
      return isPlainObject(v) ? readObject(s.fields, v) : GIVE_UP;
    case 'text':
      return typeof v === 'string' ? readText(s.fn, v) : GIVE_UP;
    case 'opaque':
      return GIVE_UP;
  }
}

function readAll(of: Shape, v: readonly unknown[]): unknown[] | typeof GIVE_UP {
  const out: unknown[] = [];
  for (const item of v) {
    const r = read(of, item);
    if (r === GIVE_UP) return GIVE_UP;
    out.push(r);
  }
  return out;
}

// "__proto__" would be a prototype, not a key, in an object built by assignment.
function readRecord(of: Shape, v: Record<string, unknown>): Record<string, unknown> | typeof GIVE_UP {
  const out: Record<string, unknown> = {};
  for (const [k, item] of Object.entries(v)) {
    if (k === '__proto__') return GIVE_UP;
    const r = read(of, item);
    if (r === GIVE_UP) return GIVE_UP;
    out[k] = r;
  }
  return out;
}

function readObject(fields: Readonly<Record<string, Shape>>, v: Record<string, unknown>): Record<string, unknown> | typeof GIVE_UP {
  const keys = Object.keys(fields);
  const sources = matchKeys(v, keys);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const field = fields[key] as Shape;
    const src = sources.get(key);
    // Folding is fold-schema.ts's: another spelling of a field is left to it and zod.
    if (src !== undefined && src !== key) return GIVE_UP;
    let item = src === undefined ? undefined : v[src];
    if (item === null) {
      const takesNull = nullAllowed(field);
      if (takesNull === undefined) return GIVE_UP;
      if (!takesNull) item = undefined;
    }
    if (item === undefined) {
      // An absent field: zod leaves it out, or refuses it when it is required. A key that is
      // there with the value undefined (no JSON has one) stays, as zod keeps it.
      if (field.t !== 'optional') return GIVE_UP;
      if (src !== undefined && v[src] === undefined) out[key] = undefined;
      continue;
    }
    const r = read(field, item);
    if (r === GIVE_UP) return GIVE_UP;
    // zod keeps a key the input had, even when its value became undefined.
    out[key] = r;
  }
  return out;
}

function readText(name: string, v: string): unknown {
  const fn = transformNamed(name);
  if (fn === undefined) return GIVE_UP;
  const ctx = { value: v, issues: [] as unknown[] };
  const r = fn(v, ctx as Parameters<typeof fn>[1]);
  return ctx.issues.length === 0 ? r : GIVE_UP;
}
