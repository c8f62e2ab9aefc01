import t from 'tap';
import { findCycles, valueImports } from './import-cycles.ts';

t.test('value imports and re-exports count; type-only ones and packages do not', async (t) => {
  const src = [
    "import { a } from './a.ts';",
    "import type { B } from './b.ts';",
    "import {\n  c,\n  type C,\n} from '../lib/c.ts';",
    "export { d } from './d.ts';",
    "export type { E } from './e.ts';",
    "export * from './f.ts';",
    "import './g.ts';",
    "import t from 'tap';",
    "import { x } from 'node:fs';",
  ].join('\n');
  t.same(valueImports('plugins/p/main.ts', src), ['plugins/p/a.ts', 'plugins/lib/c.ts', 'plugins/p/d.ts', 'plugins/p/f.ts', 'plugins/p/g.ts']);
});

t.test('a cycle is found once, from its smallest file; a diamond is no cycle', async (t) => {
  const g = new Map<string, string[]>([
    ['a', ['b', 'c']],
    ['b', ['d']],
    ['c', ['d']],
    ['d', []],
    ['x', ['y']],
    ['y', ['z']],
    ['z', ['x', 'outside']],
  ]);
  t.same(findCycles(g), [['x', 'y', 'z']]);
  t.same(findCycles(new Map([['self', ['self']]])), [['self']]);
  t.same(
    findCycles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
});
