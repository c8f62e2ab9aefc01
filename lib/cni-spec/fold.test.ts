import t from 'tap';
import * as z from 'zod/mini';
import { foldBySchema } from './fold-schema.ts';
import { foldKeys, foldName } from './fold.ts';

t.test('foldName is Go foldName', async (t) => {
  t.equal(foldName('runtimeConfig'), 'RUNTIMECONFIG');
  t.equal(foldName('bandWidth'), foldName('bandwidth'));
  t.equal(foldName('\u212Aey'), foldName('key'), 'KELVIN SIGN folds to K, as in Go');
  t.equal(foldName('\u017Fubnet'), foldName('subnet'), 'LONG S folds to S, as in Go');
  t.not(foldName('stra\u00DFe'), foldName('STRASSE'), 'no multi-rune expansion (ß is not SS)');
});

t.test('foldKeys: exact wins, else case-insensitive, unknown dropped', async (t) => {
  t.same(foldKeys({ RuntimeConfig: { a: 1 }, other: 1 }, ['runtimeConfig']), { runtimeConfig: { a: 1 } });
  t.same(foldKeys({ bandwidth: 1, bandWidth: 2 }, ['bandwidth']), { bandwidth: 1 }, 'the exact spelling is preferred');
  t.same(foldKeys({ BANDWIDTH: 1, bandWidth: 2 }, ['bandwidth']), { bandwidth: 2 }, 'among folded matches the last wins');
  t.same(foldKeys({}, ['a', 'b']), {}, 'absent keys stay absent');
  t.same(foldKeys({ a: undefined }, ['a']), { a: undefined });
});

const schema = z.object({
  name: z.string(),
  runtimeConfig: z.optional(
    z.object({
      portMappings: z.optional(z.array(z.object({ hostPort: z.number(), containerPort: z.number() }))),
      bandwidth: z.optional(z.object({ ingressRate: z.number() })),
    }),
  ),
  ipam: z.optional(
    z.object({
      type: z.string(),
      ranges: z.optional(z.array(z.array(z.object({ subnet: z.string() })))),
      routes: z.nullable(z.array(z.object({ dst: z.string() }))),
    }),
  ),
  labels: z.optional(z.record(z.string(), z.object({ keyName: z.string() }))),
  pair: z.optional(z.tuple([z.object({ aB: z.number() }), z.object({ cD: z.number() })])),
  either: z.optional(z.union([z.object({ minID: z.number(), maxID: z.number() }), z.object({ id: z.number() })])),
  both: z.optional(z.intersection(z.object({ left: z.number() }), z.object({ right: z.number() }))),
  lazy: z.optional(z.lazy(() => z.object({ deepKey: z.number() }))),
  fallback: z._default(z.object({ inner: z.number() }), { inner: 0 }),
});

t.test('foldBySchema renames keys at every level the schema describes', async (t) => {
  const raw = {
    NAME: 'net',
    RuntimeConfig: { PortMappings: [{ HOSTPORT: 80, containerport: 8080 }], bandWidth: { IngressRate: 1 } },
    Ipam: { Type: 'host-local', RANGES: [[{ Subnet: '10.0.0.0/24' }]], Routes: null },
    labels: { KeepMe: { KEYNAME: 'x' } },
    pair: [{ ab: 1 }, { CD: 2 }],
    either: { ID: 3 },
    both: { LEFT: 1, Right: 2 },
    Lazy: { DEEPKEY: 1 },
    Fallback: { INNER: 5 },
    unknownKey: true,
  };
  const folded = foldBySchema(schema, raw) as Record<string, unknown>;
  t.same(folded, {
    name: 'net',
    runtimeConfig: { portMappings: [{ hostPort: 80, containerPort: 8080 }], bandwidth: { ingressRate: 1 } },
    ipam: { type: 'host-local', ranges: [[{ subnet: '10.0.0.0/24' }]], routes: null },
    labels: { KeepMe: { keyName: 'x' } }, // record keys are data, never folded
    pair: [{ aB: 1 }, { cD: 2 }],
    either: { id: 3 },
    both: { left: 1, right: 2 },
    lazy: { deepKey: 1 },
    fallback: { inner: 5 },
    unknownKey: true, // left for the schema to strip
  });
  t.ok(z.safeParse(schema, folded).success, 'the folded value validates');
});

t.test('null means absent unless the field is nullable', async (t) => {
  const folded = foldBySchema(schema, { name: 'n', runtimeConfig: null, ipam: { type: 't', routes: null } }) as Record<string, unknown>;
  t.notOk('runtimeConfig' in folded, 'null for an optional object is dropped');
  t.same(folded['ipam'], { type: 't', routes: null }, 'null kept for a nullable field');
});

t.test('union of objects: the option that validates after folding is used', async (t) => {
  t.same(foldBySchema(schema, { name: 'n', either: { MINID: 1, MaxId: 2 } }), { name: 'n', either: { minID: 1, maxID: 2 } });
  t.same(foldBySchema(z.union([z.string(), z.object({ aA: z.number() })]), { AA: 1 }), { aA: 1 }, 'single object option');
  t.equal(foldBySchema(z.union([z.string(), z.number()]), 'x'), 'x', 'scalars pass');
});

t.test('non-object values are left for the schema to reject', async (t) => {
  t.equal(foldBySchema(schema, 'nope'), 'nope');
  t.same(foldBySchema(schema, [1]), [1]);
  t.same(foldBySchema(z.object({ a: z.array(z.object({ bB: z.number() })) }), { a: 'x' }), { a: 'x' });
});
