// A zod schema's plain-data mirror, for quick-parse.ts. Building zod schemas and running them
// the first time costs a fresh plugin process ~5 ms (measured in the Bun binary; the code runs
// once, in the interpreter), about a third of the work a chained plugin does. The build
// therefore derives each named schema's shape once (scripts/build/quick-shapes.ts) and puts it in the
// executable as JSON; at run time a config that fits its shape is read without zod. Anything the
// mirror does not describe becomes `opaque`, where the quick reading gives up and zod decides.
import type * as z from 'zod/mini';
import { def, type ZodDef } from './fold-schema.ts';

export type Shape =
  | { readonly t: 'string' | 'number' | 'int' | 'boolean' | 'unknown' | 'opaque' }
  | { readonly t: 'optional' | 'nullable' | 'array' | 'record'; readonly of: Shape }
  | { readonly t: 'object'; readonly fields: Readonly<Record<string, Shape>> }
  /** a string read by a named transform (see namedTransform) */
  | { readonly t: 'text'; readonly fn: string };

/**
 * A transform as zod calls it: the value, and a context that collects issues. A transform that
 * pushes an issue has failed, whatever it returns.
 */
export type TransformFn = (v: string, ctx: z.core.ParsePayload<unknown>) => unknown;

const byName = new Map<string, TransformFn>();
const names = new WeakMap<object, string>();

/**
 * Registers a string transform under a name unique in the suite, so a shape can name it and the
 * quick reading can call the same function. Call it at module level: the module that builds the
 * schema is loaded before its config is read, so the name is known by then.
 */
export function namedTransform<F extends TransformFn>(name: string, fn: F): F {
  const known = byName.get(name);
  if (known !== undefined && known !== fn) throw new Error(`transform ${name} is registered twice`);
  byName.set(name, fn);
  names.set(fn, name);
  return fn;
}

export function transformNamed(name: string): TransformFn | undefined {
  return byName.get(name);
}

const OPAQUE: Shape = { t: 'opaque' };

const unchecked = (d: ZodDef) => (d.checks ?? []).length === 0;

/** The shape of `schema`; parts it cannot mirror exactly are `opaque`. */
export function shapeOf(schema: z.core.$ZodType): Shape {
  const d = def(schema);
  switch (d.type) {
    case 'string':
      return unchecked(d) && d.format === undefined ? { t: 'string' } : OPAQUE;
    case 'number':
      if (!unchecked(d)) return OPAQUE;
      if (d.format === undefined) return { t: 'number' };
      return d.check === 'number_format' && d.format === 'safeint' ? { t: 'int' } : OPAQUE;
    case 'boolean':
    case 'unknown':
      return unchecked(d) ? { t: d.type } : OPAQUE;
    case 'optional':
    case 'nullable':
      return d.innerType ? { t: d.type, of: shapeOf(d.innerType) } : OPAQUE;
    case 'array':
      return d.element && unchecked(d) ? { t: 'array', of: shapeOf(d.element) } : OPAQUE;
    case 'record': {
      const key = d.keyType ? shapeOf(d.keyType) : OPAQUE;
      return key.t === 'string' && d.valueType && unchecked(d) ? { t: 'record', of: shapeOf(d.valueType) } : OPAQUE;
    }
    case 'object':
      if (d.catchall !== undefined || !d.shape || !unchecked(d)) return OPAQUE;
      return { t: 'object', fields: Object.fromEntries(Object.entries(d.shape).map(([k, v]) => [k, shapeOf(v)])) };
    case 'pipe': {
      if (!d.in || !d.out || !unchecked(d)) return OPAQUE;
      const out = def(d.out);
      const fn = out.type === 'transform' && out.transform ? names.get(out.transform) : undefined;
      return fn !== undefined && shapeOf(d.in).t === 'string' ? { t: 'text', fn } : OPAQUE;
    }
    default:
      return OPAQUE;
  }
}
