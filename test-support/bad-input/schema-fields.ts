// Every field a zod/mini config schema declares, with the JSON kind it takes: the generator
// gives each one every other kind. Walks the schema (small and not recursive), never a value.
import type * as z from 'zod/mini';

export type Kind = 'string' | 'number' | 'int' | 'boolean' | 'array' | 'object';
/** A path into the config: keys, and 0 for "the first element" of an array. */
export type Path = readonly (string | 0)[];
export interface Field {
  readonly path: Path;
  readonly kind: Kind;
}

interface Def {
  type: string;
  format?: string;
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
}
const def = (s: z.core.$ZodType): Def => s._zod.def;

function unwrap(s: z.core.$ZodType): Def {
  for (;;) {
    const d = def(s);
    if (d.innerType && ['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional'].includes(d.type)) s = d.innerType;
    else if (d.type === 'pipe' && d.in) s = d.in;
    else return d;
  }
}

/** Fields in schema order, containers before what they hold. Record values get the key "x". */
export function schemaFields(schema: z.core.$ZodType): Field[] {
  const out: Field[] = [];
  const stack: { s: z.core.$ZodType; path: Path }[] = [{ s: schema, path: [] }];
  while (stack.length > 0) {
    const { s, path } = stack.shift() as { s: z.core.$ZodType; path: Path };
    const d = unwrap(s);
    const add = (kind: Kind) => path.length > 0 && out.push({ path, kind });
    switch (d.type) {
      case 'object':
        add('object');
        for (const [k, v] of Object.entries(d.shape ?? {})) stack.push({ s: v, path: [...path, k] });
        break;
      case 'record':
        add('object');
        if (d.valueType) stack.push({ s: d.valueType, path: [...path, 'x'] });
        break;
      case 'array':
        add('array');
        if (d.element) stack.push({ s: d.element, path: [...path, 0] });
        break;
      case 'string':
        add('string');
        break;
      case 'number':
        add(d.format?.includes('int') ? 'int' : 'number');
        break;
      case 'boolean':
        add('boolean');
        break;
      default:
        break; // unknown/any: every value is right
    }
  }
  return out;
}

/** "ipam.ranges[0][0].subnet", as the plugins' error details print it. */
export function formatPath(path: Path): string {
  let s = '';
  for (const p of path) s += p === 0 ? '[0]' : /^[A-Za-z_$][\w$]*$/.test(p) ? (s === '' ? p : `.${p}`) : `[${JSON.stringify(p)}]`;
  return s;
}

/** A copy of `obj` with `value` at `path`, creating objects and one-element arrays on the way. */
export function setPath(obj: Record<string, unknown>, path: Path, value: unknown): Record<string, unknown> {
  const root = structuredClone(obj);
  let cur: any = root;
  path.forEach((p, i) => {
    if (i === path.length - 1) {
      cur[p] = value;
      return;
    }
    const next = path[i + 1];
    const want = next === 0 ? 'array' : 'object';
    const have = Array.isArray(cur[p]) ? 'array' : cur[p] !== null && typeof cur[p] === 'object' ? 'object' : 'none';
    if (have !== want) cur[p] = want === 'array' ? [{}] : {};
    if (want === 'array' && cur[p].length === 0) cur[p].push({});
    cur = cur[p];
  });
  return root;
}

/** A value of each JSON kind other than `kind` (null is Go's "absent", never wrong). */
export function wrongValues(kind: Kind): [string, unknown][] {
  const all: [Kind | 'float', string, unknown][] = [
    ['string', 'string', 'x'],
    ['number', 'number', 7],
    ['float', 'float', 1.5],
    ['boolean', 'boolean', true],
    ['array', 'array', []],
    ['object', 'object', {}],
  ];
  return all
    .filter(([k]) => {
      if (k === 'float') return kind === 'int';
      if (k === 'number') return kind !== 'number' && kind !== 'int';
      return k !== kind;
    })
    .map(([, name, v]) => [name, v]);
}
