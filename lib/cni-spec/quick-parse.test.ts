// The quick reading of a config against zod, the contract: on every input here it either gives
// up or returns exactly what validate() (key folding, then zod) returns. The expected values are
// zod's own answers, computed in the test.
import t, { type Test } from 'tap';
import * as z from 'zod/mini';
import { quickParse } from './quick-parse.ts';
import { namedTransform, shapeOf } from './quick-shape.ts';
import { validate } from './schema.ts';
import { sameValue } from './test-same-value.ts';
import { failTransform } from './text-fields.ts';

const upper = namedTransform('test-upper', (v: string, ctx: z.core.ParsePayload<unknown>) =>
  v === 'bad' ? failTransform(ctx, v, 'bad value') : v === '' ? undefined : v.toUpperCase(),
);

const schema = z.object({
  name: z.string(),
  count: z.optional(z.int()),
  ratio: z.optional(z.number()),
  on: z.optional(z.boolean()),
  tags: z.optional(z.array(z.string())),
  labels: z.optional(z.record(z.string(), z.string())),
  maybe: z.optional(z.nullable(z.string())),
  anything: z.optional(z.unknown()),
  code: z.optional(z.pipe(z.string(), z.transform(upper))),
  nested: z.optional(z.object({ port: z.optional(z.int()), hosts: z.optional(z.array(z.object({ ip: z.string() }))) })),
});
const shape = shapeOf(schema);

function agrees(t: Test, raw: unknown, expectQuick: boolean): void {
  const q = quickParse(shape, raw);
  const v = validate(schema, raw);
  t.equal(q !== undefined, expectQuick, expectQuick ? 'read quickly' : 'left to zod');
  if (q === undefined) return;
  t.ok(v.ok, 'zod accepts what the quick reading accepted');
  if (!v.ok) return;
  t.ok(sameValue(q.value, v.value), 'same value, same key order');
}

const full = {
  anything: { x: [1, null] },
  name: 'n',
  count: 3,
  ratio: 0.5,
  on: false,
  tags: ['a'],
  labels: { a: 'b' },
  maybe: 'm',
  code: 'abc',
  nested: { port: 80, hosts: [{ ip: '10.0.0.1', extra: 1 }] },
  unknownKey: 1,
};

const accepted: [string, unknown][] = [
  ['every field, unknown keys dropped', full],
  ['only the required field', { name: 'n' }],
  ['JSON null for a field that is not nullable: absent', { name: 'n', count: null, tags: null, nested: null }],
  ['JSON null kept where the field is nullable or unknown', { name: 'n', maybe: null, anything: null }],
  ['a transform that returns undefined keeps its key', { name: 'n', code: '' }],
  ['an exact key wins over another spelling', { name: 'n', count: 1, COUNT: 'x' }],
  ['empty containers', { name: 'n', tags: [], labels: {}, nested: {} }],
];
for (const [what, raw] of accepted) t.test(what, async (t) => agrees(t, raw, true));

const leftToZod: [string, unknown][] = [
  ['a wrong type', { name: 'n', count: 'x' }],
  ['a float where an int is wanted', { name: 'n', count: 1.5 }],
  ['an int past 2^53', { name: 'n', count: 2 ** 60 }],
  ['a required field missing', {}],
  ['a required field null', { name: null }],
  ['a failing transform', { name: 'n', code: 'bad' }],
  ['a key in another case (zod folds it)', { Name: 'n' }],
  ['a nested key in another case', { name: 'n', nested: { PORT: 1 } }],
  ['a wrong type deep inside', { name: 'n', nested: { hosts: [{ ip: 1 }] } }],
  ['a record value of the wrong type', { name: 'n', labels: { a: 1 } }],
  ['a "__proto__" record key', { name: 'n', labels: JSON.parse('{"__proto__": "x"}') as unknown }],
  ['not an object', ['n']],
  ['null', null],
];
for (const [what, raw] of leftToZod) t.test(what, async (t) => agrees(t, raw, false));

t.test('a transform the quick reading does not know by name is left to zod', async (t) => {
  const s = z.object({
    v: z.pipe(
      z.string(),
      z.transform((x: string) => x.length),
    ),
  });
  t.same(shapeOf(s), { t: 'object', fields: { v: { t: 'opaque' } } });
  t.equal(quickParse(shapeOf(s), { v: 'abc' }), undefined);
});

t.test('what the shape cannot mirror is opaque: checks, unions, loose objects', async (t) => {
  t.same(shapeOf(z.number().check(z.minimum(1))), { t: 'opaque' });
  t.same(shapeOf(z.union([z.string(), z.int()])), { t: 'opaque' });
  t.same(shapeOf(z.looseObject({ a: z.string() })), { t: 'opaque' });
  t.same(shapeOf(z.string().check(z.regex(/x/))), { t: 'opaque' });
  t.same(shapeOf(z.record(z.string().check(z.regex(/x/)), z.string())), { t: 'opaque' });
});

t.test('a field whose null only zod can judge is left to zod', async (t) => {
  const s = z.object({ u: z.optional(z.union([z.string(), z.null()])) });
  t.equal(quickParse(shapeOf(s), { u: null }), undefined);
  t.same(quickParse(shapeOf(s), {}), { value: {} }, 'absent, it is simply left out');
  t.same(validate(s, {}), { ok: true, value: {} });
});

t.test('a transform name taken twice by different functions is refused', async (t) => {
  t.throws(() => namedTransform('test-upper', (v: string) => v), /registered twice/);
});
