// The build's rewrite of netlink's CommonJS modules into ES modules (scripts/build/netlink-esm.ts): the
// rewritten module must export the same names with the same values and encode and decode the same
// bytes as the module npm installed; a shape the rewrite does not know must fail the build.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { netlinkEndianness } from './bundle.ts';
import { cjsToEsm, NETLINK_ESM_FILES, netlinkEsm } from './netlink-esm.ts';

const require = createRequire(import.meta.url);
const netlinkDir = join(import.meta.dirname, '..', '..', 'node_modules', 'netlink');

type Module = Record<string, unknown>;

/** The rewritten module, bundled by esbuild through the plugin and evaluated. */
async function rewritten(file: string): Promise<Module> {
  const res = await build({
    entryPoints: [join(netlinkDir, file)],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    logLevel: 'silent',
    plugins: [netlinkEndianness, netlinkEsm],
  });
  const dir = mkdtempSync(join(tmpdir(), 'cnits-netlink-esm-'));
  try {
    const out = join(dir, `${file.replace(/\W/g, '_')}.cjs`);
    writeFileSync(out, res.outputFiles[0]?.text ?? '');
    return require(out) as Module;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const original = (file: string): Module => require(join(netlinkDir, file)) as Module;

for (const file of NETLINK_ESM_FILES) {
  t.test(`${file}: the same exports, the same values`, async (t) => {
    const [esm, cjs] = [await rewritten(file), original(file)];
    const names = (m: Module) =>
      Object.keys(m)
        .filter((k) => k !== '__esModule')
        .sort();
    t.same(names(esm), names(cjs));
    for (const name of names(cjs)) {
      const [a, b] = [esm[name], cjs[name]];
      if (typeof b === 'function') t.equal(typeof a, 'function', name);
      else t.same(a, b, name);
    }
  });
}

t.test('a link message encodes to the same bytes and decodes to the same object', async (t) => {
  const [structs, ifla, gen] = [await rewritten('dist/structs.js'), await rewritten('dist/rt/ifla.js'), await rewritten('dist/rt/gen_structs.js')];
  const [oStructs, oIfla, oGen] = [original('dist/structs.js'), original('dist/rt/ifla.js'), original('dist/rt/gen_structs.js')];
  type Stream = { emit(x: unknown): void; bufs: Uint8Array[] };
  const encode = (s: Module, i: Module, g: Module): Buffer => {
    const out = new (s['AttrStream'] as new () => Stream)();
    out.emit((g['formatLink'] as (x: object) => Uint8Array)({ index: 7, flags: 1, change: 1 }));
    out.emit((i['formatLinkAttrs'] as (x: object) => unknown)({ ifname: 'eth0', mtu: 1400, address: Buffer.from('020000000042', 'hex'), txqlen: 1000 }));
    return Buffer.concat(out.bufs);
  };
  const bytes = encode(structs, ifla, gen);
  t.same(bytes, encode(oStructs, oIfla, oGen));
  const decode = (i: Module, g: Module) => ({
    data: (g['parseLink'] as (b: Buffer) => unknown)(bytes.subarray(0, 16)),
    attrs: (i['parseLinkAttrs'] as (b: Buffer) => unknown)(bytes.subarray(16)),
  });
  const decoded = decode(ifla, gen);
  t.same(decoded, decode(oIfla, oGen));
  t.match(decoded, { data: { index: 7 }, attrs: { ifname: 'eth0', mtu: 1400, txqlen: 1000 } });
});

t.test('a CommonJS shape the rewrite does not know fails the build', async (t) => {
  t.throws(() => cjsToEsm('module.exports = { a: 1 };\n', 'm.js'), /module\.exports/);
  t.throws(() => cjsToEsm('function a() { return exports.b; }\nexports.a = a;\n', 'm.js'), /reads exports\.b, which it never sets/);
  t.throws(() => cjsToEsm('__exportStar(require("./x"), exports);\nexports.a = 1;\n', 'm.js'), /CommonJS form/);
  t.throws(() => cjsToEsm('exports[name] = 1;\nexports.a = 1;\n', 'm.js'), /CommonJS form/);
  t.throws(() => cjsToEsm('const x = 1;\n', 'm.js'), /exports nothing/);
});

t.test('the forms it knows become ES module syntax', async (t) => {
  const out = cjsToEsm(
    [
      '"use strict";',
      'Object.defineProperty(exports, "__esModule", { value: true });',
      'exports.F = exports.E = exports.f = exports.N = void 0;',
      'const s = __importStar(require("../structs"));',
      'function f(x) { return x + exports.N; }',
      'exports.f = f;',
      'exports.N = 4;',
      'var E;',
      '(function (E) {',
      '    E[E["A"] = 1] = "A";',
      '})(E || (exports.E = E = {}));',
      'var F;',
      '(function (F) {',
      '    F[F["B"] = 2] = "B";',
      '})(F = exports.F || (exports.F = {}));',
      '',
    ].join('\n'),
    'm.js',
  );
  const [body, exportLine] = out.split(/\n(?=export \{)/);
  t.equal(
    body,
    [
      'import * as s from "../structs";',
      'function f(x) { return x + N; }',
      'var N = 4;',
      // enums: one pure expression each, which esbuild drops when nothing reads it
      'var E = /* @__PURE__ */ (function (E) {',
      '    E[E["A"] = 1] = "A";',
      '    return E;',
      '})({});',
      'var F = /* @__PURE__ */ (function (F) {',
      '    F[F["B"] = 2] = "B";',
      '    return F;',
      '})({});',
      '',
    ].join('\n'),
  );
  t.same(
    /^export \{ (.*) \};\n$/
      .exec(exportLine ?? '')?.[1]
      ?.split(', ')
      .sort(),
    ['E', 'F', 'N', 'f'],
  );
});
