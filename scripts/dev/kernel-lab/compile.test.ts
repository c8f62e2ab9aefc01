// The kernel lab's compiled checkout: relative .ts imports become .js and 'tap' the bundled tap,
// in the forms esbuild prints; other specifiers stay as they are.
import t from 'tap';
import { rewriteSpecifiers } from './compile.ts';

t.test('relative .ts specifiers become .js, tap becomes the bundle, others stay', async (t) => {
  const js = [
    'import t from "tap";',
    'import { a } from "../helpers/a.ts";',
    'export { b } from "./b.ts";',
    'import "./side.ts";',
    'const m = await import("./lazy.ts");',
    'import { join } from "node:path";',
    'import x from "tap-parser";',
    'const s = "./not-an-import.ts";',
  ].join('\n');
  t.equal(
    rewriteSpecifiers(js, '/repo/node_modules/.kernel-lab/tap.mjs'),
    [
      'import t from "/repo/node_modules/.kernel-lab/tap.mjs";',
      'import { a } from "../helpers/a.js";',
      'export { b } from "./b.js";',
      'import "./side.js";',
      'const m = await import("./lazy.js");',
      'import { join } from "node:path";',
      'import x from "tap-parser";',
      'const s = "./not-an-import.ts";',
    ].join('\n'),
  );
});
