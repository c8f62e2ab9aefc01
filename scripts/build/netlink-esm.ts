// netlink@0.3.0 ships its encoders and decoders as CommonJS compiled by tsc, and esbuild keeps a
// CommonJS module whole: every plugin start evaluated all ~250 KB of them (the route, link and
// tc structs of every kind of device), ~9 ms of a Bun start (measured), though lib/linux uses a
// few dozen functions. This rewrites those modules into ES modules as they are bundled, so
// esbuild drops every function no code of ours reaches.
//
// It knows only the shapes tsc emits in these files and refuses anything else: a netlink update
// that changes them fails the build instead of bundling a module that half works.
import type { Plugin } from 'esbuild';
import { readFileSync } from 'node:fs';

/** The modules rewritten, relative to netlink's package directory. */
export const NETLINK_ESM_FILES = ['dist/structs.js', 'dist/rt/gen_structs.js', 'dist/rt/ifla.js'] as const;

const ID = '[A-Za-z_$][\\w$]*';

/** tsc's CommonJS output of one module → the same module as ESM. Throws on any shape it does not know. */
export function cjsToEsm(source: string, file: string): string {
  const exported = new Set<string>();
  const fail = (why: string): never => {
    throw new Error(`netlink-esm: ${file}: ${why}`);
  };
  let s = source
    .replace(/^"use strict";\n/m, '')
    .replace(/^Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);\n/m, '')
    // tsc's "declare every export first" lines: exports.a = exports.b = … = void 0;
    .replace(new RegExp(`^exports\\.${ID}(?: = exports\\.${ID})* = void 0;\\n`, 'gm'), '')
    // tsc's interop helpers read `this` at the top level, which an ES module does not have; they
    // are never called once the requires below are imports.
    .replace(/\(this && this\.(__\w+)\) \|\| /g, '')
    .replace(new RegExp(`^const (${ID}) = (?:__importStar\\()?require\\("([^"]+)"\\)\\)?;$`, 'gm'), 'import * as $1 from "$2";')
    // function f() {…} exports.f = f;
    .replace(new RegExp(`^exports\\.(${ID}) = \\1;\\n`, 'gm'), (_m, name: string) => {
      exported.add(name);
      return '';
    })
    // enums, in the two forms tsc has emitted: (function (E) {…})(E || (exports.E = E = {}));
    // and (function (E) {…})(E = exports.E || (exports.E = {}));
    .replace(new RegExp(`\\(exports\\.(${ID}) = \\1 = \\{\\}\\)`, 'g'), (_m, name: string) => {
      exported.add(name);
      return `(${name} = {})`;
    })
    .replace(new RegExp(`\\((${ID}) = exports\\.\\1 \\|\\| \\(exports\\.\\1 = \\{\\}\\)\\)`, 'g'), (_m, name: string) => {
      exported.add(name);
      return `(${name} || (${name} = {}))`;
    })
    // exports.X = <expression>; (constants, and functions picked by endianness)
    .replace(new RegExp(`^exports\\.(${ID}) = `, 'gm'), (_m, name: string) => {
      exported.add(name);
      return `var ${name} = `;
    });
  // An enum becomes one pure expression, so that esbuild drops the ones nothing reads (their
  // IIFEs are statements with side effects otherwise, and all 33 ran at every start).
  s = s.replace(
    new RegExp(`^var (${ID});\\n\\(function \\(\\1\\) \\{\\n([\\s\\S]*?)\\n\\}\\)\\(\\1 \\|\\| \\(\\1 = \\{\\}\\)\\);$`, 'gm'),
    (_m, name: string, body: string) => `var ${name} = /* @__PURE__ */ (function (${name}) {\n${body}\n    return ${name};\n})({});`,
  );
  // What is left are reads of the module's own exports: exports.X → X.
  s = s.replace(new RegExp(`\\bexports\\.(${ID})`, 'g'), (_m, name: string) =>
    exported.has(name) ? name : fail(`reads exports.${name}, which it never sets`),
  );
  const leftover = /\bexports\b|\brequire\(|\bmodule\.exports\b|__exportStar\(/.exec(s);
  if (leftover) fail(`a CommonJS form this rewrite does not know is left: ${JSON.stringify(s.slice(leftover.index, leftover.index + 80))}`);
  if (exported.size === 0) fail('exports nothing');
  return `${s}\nexport { ${[...exported].join(', ')} };\n`;
}

/** esbuild plugin: netlink's NETLINK_ESM_FILES are loaded through cjsToEsm. */
export const netlinkEsm: Plugin = {
  name: 'netlink-esm',
  setup(b) {
    const files = new RegExp(
      `[/\\\\]node_modules[/\\\\]netlink[/\\\\](?:${NETLINK_ESM_FILES.map((f) => f.replace(/[./]/g, (c) => (c === '.' ? '\\.' : '[/\\\\]'))).join('|')})$`,
    );
    b.onLoad({ filter: files }, (args) => ({ loader: 'js', contents: cjsToEsm(readFileSync(args.path, 'utf8'), args.path) }));
  },
};
