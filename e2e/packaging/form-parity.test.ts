// The form-parity set (e2e/form-parity.txt, run by `npm test` against the bundles after the whole
// suite ran against the Bun form) names files that exist, and holds every file that tests a
// form's own mechanics: a test that only runs in the bundle form (`OURS_FORM === 'bundle'`) would
// otherwise never run at all. Needs no root and no build.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import t from 'tap';

const root = join(import.meta.dirname, '..', '..');

/** The list as scripts/dev/test.sh reads it: `#` starts a comment, one path per line. */
function parityFiles(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l !== '');
}

const listed = parityFiles(readFileSync(join(root, 'e2e', 'form-parity.txt'), 'utf8'));
const e2eFiles = readdirSync(join(root, 'e2e'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
  .map((e) => relative(root, join(e.parentPath, e.name)));

t.test('every file of the parity set is an e2e test file, named once', async (t) => {
  for (const f of listed) t.ok(existsSync(join(root, f)) && f.startsWith('e2e/') && f.endsWith('.test.ts'), `${f} is an e2e test file`);
  t.same(
    listed.filter((f, i) => listed.indexOf(f) !== i),
    [],
    'no file twice',
  );
});

t.test('every file that tests a form of its own mechanics runs against the bundles too', async (t) => {
  const self = relative(root, import.meta.filename);
  const formSpecific = e2eFiles.filter((f) => f !== self && /\bOURS_FORM\b/.test(readFileSync(join(root, f), 'utf8')));
  t.ok(formSpecific.length > 0, `some files read OURS_FORM: ${formSpecific.join(', ')}`);
  for (const f of formSpecific) t.ok(listed.includes(f), `${f} is in the parity set`);
});

t.test('e2e/packaging/bun.test.ts is not in it: it tests dist/bun whatever the form, in the full run', async (t) => {
  t.notOk(listed.includes('e2e/packaging/bun.test.ts'), 'not listed');
});
