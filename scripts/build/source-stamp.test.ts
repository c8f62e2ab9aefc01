// The staleness record of a built form (scripts/build/source-stamp.ts) in a made-up tree.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { recordBuild, sourceDigest, staleness } from './source-stamp.ts';

function tree(t: Test): string {
  const root = mkdtempSync(join(tmpdir(), 'cnits-stamp-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  for (const d of ['lib', 'plugins/loopback', 'native/build/Release/obj.target', 'dist']) mkdirSync(join(root, d), { recursive: true });
  writeFileSync(join(root, 'plugins/loopback/add.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'lib/x.test.ts'), 'test\n');
  writeFileSync(join(root, 'native/build/Release/cni_native.node'), 'addon');
  writeFileSync(join(root, 'native/build/Release/obj.target/x.o'), 'obj');
  writeFileSync(join(root, 'package-lock.json'), '{}');
  return root;
}

t.test('a form is stale until built, and again after a source edit; fresh once the edit is undone', async (t) => {
  const root = tree(t);
  t.match(staleness('bun', root), /no record/, 'never built');
  recordBuild('bun', sourceDigest(root), root);
  t.equal(staleness('bun', root), undefined, 'built from these sources');
  t.match(staleness('bundle', root), /no record/, 'each form has its own record');
  writeFileSync(join(root, 'plugins/loopback/add.ts'), 'export const a = 1; // a comment\n');
  t.match(staleness('bun', root), /sources changed/, 'a comment edit makes it stale');
  writeFileSync(join(root, 'plugins/loopback/add.ts'), 'export const a = 1;\n');
  t.equal(staleness('bun', root), undefined, 'the edit undone: fresh again');
});

t.test('what is built in counts (the addon, the lock file, a new file); tests and object files do not', async (t) => {
  const root = tree(t);
  recordBuild('bundle', sourceDigest(root), root);
  writeFileSync(join(root, 'lib/x.test.ts'), 'changed\n');
  writeFileSync(join(root, 'native/build/Release/obj.target/x.o'), 'changed');
  t.equal(staleness('bundle', root), undefined, 'a test or an object file changed: still fresh');
  for (const [file, text] of [
    ['native/build/Release/cni_native.node', 'new addon'],
    ['package-lock.json', '{"v":2}'],
    ['lib/new.ts', 'export {};\n'],
  ] as const) {
    recordBuild('bundle', sourceDigest(root), root);
    writeFileSync(join(root, file), text);
    t.match(staleness('bundle', root), /sources changed/, `${file} changed: stale`);
  }
});
