// The shapes the build puts in the bundles (scripts/build/quick-shapes.ts) against zod, on every
// config the bad-input generator derives (each target's valid config, every field given every
// wrong JSON kind, null, another spelling of its key, the targets' bad strings and numbers), the
// conf-examples and the result fixtures: the quick reading either gives up or returns exactly
// what zod returns, and it does read every valid config (else it would save nothing).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type * as z from 'zod/mini';
import { type NamedSchema, namedSchemas } from '../../lib/cni-spec/named-schema.ts';
import { quickParse } from '../../lib/cni-spec/quick-parse.ts';
import { resultSchema } from '../../lib/cni-spec/result-schema.ts';
import { validate } from '../../lib/cni-spec/schema.ts';
import { sameValue } from '../../lib/cni-spec/test-same-value.ts';
import { resultFamily } from '../../lib/cni-spec/versions.ts';
import { schemaFields, setPath, wrongValues, type Path } from '../../test-support/bad-input/schema-fields.ts';
import { TARGETS } from '../../test-support/bad-input/targets.ts';
import { quickShapes } from './quick-shapes.ts';

const root = join(import.meta.dirname, '..', '..');
const BUILD_SHAPES = "import { quickShapes } from './scripts/build/quick-shapes.ts'; console.log(JSON.stringify(Object.keys(await quickShapes())));";
const shapes = await quickShapes();
const byName = new Map([...namedSchemas()]);
const named = (s: z.core.$ZodType): NamedSchema => {
  const n = [...byName.values()].find((x) => x() === s);
  if (!n) throw new Error('a schema of the generator is not a named schema');
  return n;
};

const clone = <T>(v: T): T => structuredClone(v);
const pathOf = (s: string): Path => s.split(/\.|(?=\[)/).map((p) => (p === '[0]' ? 0 : p));

/** Every config derived from `base` for `schema`: the generator's mutations and a few more. */
function variants(base: Record<string, unknown>, schema: z.core.$ZodType, extra: Record<string, readonly unknown[]> = {}): unknown[] {
  const out: unknown[] = [base];
  for (const f of schemaFields(schema)) {
    for (const [, v] of wrongValues(f.kind)) out.push(setPath(clone(base), f.path, v));
    out.push(setPath(clone(base), f.path, null));
    const last = f.path[f.path.length - 1];
    if (typeof last === 'string' && last !== 'x') {
      const other = [...f.path.slice(0, -1), last.toUpperCase()];
      out.push(setPath(clone(base), other, f.kind === 'string' ? 'x' : f.kind === 'boolean' ? true : 1));
    }
  }
  for (const [path, values] of Object.entries(extra)) for (const v of values) out.push(setPath(clone(base), pathOf(path), v));
  return out;
}

let compared = 0;
let quick = 0;
function compare(t: Test, schema: NamedSchema, raw: unknown): boolean {
  const shape = shapes[schema.schemaName];
  if (!shape) {
    t.fail(`no shape for ${schema.schemaName}`);
    return false;
  }
  compared++;
  const q = quickParse(shape, raw);
  if (q === undefined) return false;
  quick++;
  const v = validate(schema(), raw);
  if (!v.ok || !sameValue(q.value, v.value)) {
    const brief = (x: unknown) => JSON.stringify(x)?.slice(0, 600);
    t.fail(`${schema.schemaName}: the quick reading differs from zod`, { raw: brief(raw), quick: brief(q.value), zod: brief(v) });
    return true;
  }
  return true;
}

t.test('every named schema of the sources has its shape in the build', async (t) => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) files.push(p);
    }
  };
  for (const d of ['lib', 'plugins', 'tools']) walk(join(root, d));
  // Every `namedSchema('name', …)` of the sources, by its literal name.
  const defined = files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\bnamedSchema(?:<[^>]*>)?\(\s*'([^']+)'/g)].map((m) => m[1] as string));
  t.ok(defined.length >= 10, `found the named schemas of the sources: ${defined.join(', ')}`);
  // What the build gets, from a process of its own: this file's imports define every schema here.
  const built = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', BUILD_SHAPES], { cwd: root, encoding: 'utf8' });
  const names = JSON.parse(built.stdout || '[]') as string[];
  t.same(
    defined.filter((n) => !names.includes(n)).sort(),
    [],
    'the named schemas of the sources have their shape (its module is in SCHEMA_MODULES or is a plugin’s conf in plugins/registry.ts)',
  );
  t.same(Object.keys(shapes).sort(), [...byName.keys()].sort(), 'one shape per named schema');
  t.notMatch(JSON.stringify(shapes), /opaque/, 'no schema has a part only zod can read');
});

t.test('the generator’s configs: the quick reading agrees with zod, and reads every valid one', async (t) => {
  const ctx = { dataDir: '/run/cni-ts-test', name: 'quick-test' };
  for (const target of TARGETS) {
    const base = target.base(ctx);
    const schemas = [byName.get('common') as NamedSchema, ...target.schemas().map(named)];
    for (const s of schemas) {
      t.ok(compare(t, s, base), `${target.plugin}: its valid config is read without zod (${s.schemaName})`);
      const extra = { ...target.badStrings, ...target.badNumbers };
      for (const raw of variants(base, s(), extra)) compare(t, s, raw);
    }
  }
});

t.test('conf-examples: every plugin config of every conflist is read without zod', async (t) => {
  const dir = join(root, 'conf-examples');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.conflist'))) {
    const list = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { cniVersion: string; name: string; plugins: Record<string, unknown>[] };
    for (const p of list.plugins) {
      const conf = { cniVersion: list.cniVersion, name: list.name, ...p };
      const own = byName.get(String(p['type']));
      for (const s of [byName.get('common') as NamedSchema, ...(own ? [own] : [])]) t.ok(compare(t, s, conf), `${f} ${String(p['type'])} (${s.schemaName})`);
      const ipamType = (p['ipam'] as { type?: string } | undefined)?.type;
      const ipam = ipamType ? byName.get(ipamType) : undefined;
      if (ipam) t.ok(compare(t, ipam, conf), `${f} ${String(p['type'])}'s IPAM (${ipamType})`);
    }
  }
});

t.test('results of every version: the quick reading agrees with zod', async (t) => {
  const dir = join(root, 'lib', 'cni-spec', 'fixtures');
  for (const f of readdirSync(dir).filter((n) => n.startsWith('result-'))) {
    const raw = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, unknown>;
    const family = resultFamily(String(raw['cniVersion']));
    if (!family) continue;
    const s = byName.get(`result-${family}`) as NamedSchema;
    t.ok(compare(t, s, raw), `${f} is read without zod`);
    for (const v of variants(raw, resultSchema(family))) compare(t, s, v);
  }
});

t.test('the comparisons covered ground', async (t) => {
  t.ok(compared > 1000, `${compared} configs compared`);
  t.ok(quick > 100 && quick < compared, `${quick} read quickly, the rest left to zod`);
});
