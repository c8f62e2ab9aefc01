import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Exec from './exec.ts';

// lookPath caches per process, so each case gets a fresh copy of the module.
const freshLookPath = async (t: Test) => (await t.mockImport<typeof Exec>('./exec.ts')).lookPath;

function withPath<T>(value: string | undefined, f: () => T): T {
  const saved = process.env['PATH'];
  if (value === undefined) delete process.env['PATH'];
  else process.env['PATH'] = value;
  try {
    return f();
  } finally {
    if (saved === undefined) delete process.env['PATH'];
    else process.env['PATH'] = saved;
  }
}

// A runtime may exec plugins without PATH. Go's exec.LookPath then finds nothing, so the
// reference cannot run iptables or nft; we look in the usual system directories.
t.test('PATH unset: tools are found in the system directories', async (t) => {
  const lookPath = await freshLookPath(t);
  t.match(
    withPath(undefined, () => lookPath('sh')),
    /^\/(usr\/)?bin\/sh$/,
  );
  const emptyPath = await freshLookPath(t);
  t.match(
    withPath('', () => emptyPath('sh')),
    /^\/(usr\/)?bin\/sh$/,
    'an empty PATH counts as unset',
  );
});

t.test('PATH set: only its directories are searched', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cnits-path-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const lookPath = await freshLookPath(t);
  t.equal(
    withPath(dir, () => lookPath('sh')),
    undefined,
    'a PATH without sh finds no sh',
  );
});
