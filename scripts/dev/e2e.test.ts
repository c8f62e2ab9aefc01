// npm run e2e's arguments (scripts/dev/e2e.ts); the files and builds it runs are tried by hand (CONTRIBUTING.md).
import t from 'tap';
import { parseArgs } from './e2e.ts';

t.test('npm run e2e arguments: a form, files, tap options after --', async (t) => {
  t.same(parseArgs(['e2e/a.test.ts']), { form: 'bun', files: ['e2e/a.test.ts'], tapArgs: [] }, 'the Bun form by default');
  t.same(parseArgs(['--form', 'bundle', 'e2e/a.test.ts', 'e2e/b.test.ts']).files, ['e2e/a.test.ts', 'e2e/b.test.ts']);
  t.equal(parseArgs(['--form=go']).form, 'go');
  t.same(parseArgs(['--form', 'bundle', 'x', '--', '--timeout=600']).tapArgs, ['--timeout=600']);
});

t.test('an unknown form or option is an error that says what is expected', async (t) => {
  t.throws(() => parseArgs(['--form', 'sea', 'x']), /unknown form "sea": --form takes bun, bundle, go/);
  t.throws(() => parseArgs(['--form']), /unknown form "": --form takes/);
  t.throws(() => parseArgs(['--timeout=9', 'x']), /unknown option --timeout=9 \(tap's options go after --\)/);
});
