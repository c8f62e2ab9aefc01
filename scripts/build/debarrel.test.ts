// The build's import rewriting (scripts/build/debarrel.ts): a name imported from a barrel must come
// from the module that really defines it, or the build must fail; never from a wrong module.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parseBarrel, rewriteImports } from './debarrel.ts';

const root = join(import.meta.dirname, '..', '..');
const files: Record<string, string> = {
  '/p/lib/index.ts': [
    '// a barrel',
    "import { helper } from './helper.ts';",
    "export { a, b as bee, type T } from './a.ts';",
    'export type { Only } from "./types.ts";'.replace(/"/g, "'"),
    "export {\n  c,\n  d,\n} from './c.ts';",
    "export * from './sub/index.ts';",
    'export function own(): number {\n  return helper();\n}',
  ].join('\n'),
  '/p/lib/sub/index.ts': "export { deep } from './deep.ts';\nexport const local = 1;",
};
const read = (f: string) => {
  const text = files[f];
  if (text === undefined) throw new Error(`no such file ${f}`);
  return text;
};

t.test('a barrel maps each name to the module that defines it', async (t) => {
  const map = parseBarrel('/p/lib/index.ts', read);
  t.same(Object.fromEntries(map), {
    a: '/p/lib/a.ts',
    bee: '/p/lib/a.ts#b',
    T: '/p/lib/a.ts',
    Only: '/p/lib/types.ts',
    c: '/p/lib/c.ts',
    d: '/p/lib/c.ts',
    deep: '/p/lib/sub/deep.ts',
    local: '/p/lib/sub/index.ts',
    own: '/p/lib/index.ts',
  });
});

t.test('an export the parser cannot place fails the build', async (t) => {
  const bad = { '/q/index.ts': "export default 42;\nexport { x } from './x.ts';" };
  t.throws(() => parseBarrel('/q/index.ts', (f) => bad[f as keyof typeof bad]), /cannot place the names of "export default 42;"/);
});

t.test('imports from a barrel are split by defining module, renames kept, types dropped, lines kept', async (t) => {
  const barrels = new Map([['/p/lib/index.ts', parseBarrel('/p/lib/index.ts', read)]]);
  const src = [
    "import { a, bee, bee as b2, type T, own } from '../lib/index.ts';",
    "import {\n  deep,\n  local as l,\n} from '../lib/index.ts';",
    "import { other } from '../lib/other.ts';",
    "import type { Only } from '../lib/index.ts';",
    'use(a, bee, b2, own, deep, l, other);',
  ].join('\n');
  const out = rewriteImports(src, '/p/plugin', barrels);
  t.equal(
    out,
    [
      'import { a, b as bee, b as b2 } from "/p/lib/a.ts"; import { own } from "/p/lib/index.ts";',
      'import { deep } from "/p/lib/sub/deep.ts"; import { local as l } from "/p/lib/sub/index.ts";\n\n\n',
      "import { other } from '../lib/other.ts';",
      "import type { Only } from '../lib/index.ts';",
      'use(a, bee, b2, own, deep, l, other);',
    ].join('\n'),
  );
  t.equal(out.split('\n').length, src.split('\n').length, 'line numbers unchanged');
  t.throws(() => rewriteImports("import { nope } from '../lib/index.ts';", '/p/plugin', barrels), /does not export nope/);
});

t.test("the project's barrels parse, and every name they place is exported by that module", async (t) => {
  for (const barrel of ['lib/cni-spec/index.ts', 'lib/linux/index.ts']) {
    const map = parseBarrel(join(root, barrel));
    t.ok(map.size > 20, `${barrel}: ${map.size} names`);
    for (const [name, target] of map) {
      const [path, original = name] = target.split('#') as [string, string?];
      const src = readFileSync(path, 'utf8');
      const declared = new RegExp(`export\\s+(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|const|let|class|interface|type|enum)\\s+${original}\\b`);
      const reexported = new RegExp(`export\\s+(?:type\\s+)?\\{[^}]*\\b${original}\\b[^}]*\\}`);
      if (!declared.test(src) && !reexported.test(src)) t.fail(`${barrel}: ${name} is not exported by ${path}`);
    }
  }
});
