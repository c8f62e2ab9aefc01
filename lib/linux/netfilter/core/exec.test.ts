import t, { type Test } from 'tap';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

// We run as root in whatever directory the runtime started us in: a relative PATH entry names
// a directory anyone might control. Go's exec.LookPath refuses such a hit (ErrDot, Go 1.19).
t.test('relative PATH entries are never searched', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cnits-path-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'nft'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  writeFileSync(join(dir, 'sh'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const saved = process.cwd();
  process.chdir(dir);
  t.teardown(() => process.chdir(saved));
  const lookPath = await freshLookPath(t);
  t.equal(
    withPath('bin', () => lookPath('nft')),
    undefined,
    'a relative directory is not searched',
  );
  const later = await freshLookPath(t);
  t.match(
    withPath(`.:bin::${dirname(realSh())}`, () => later('sh')),
    /^\/(usr\/)?bin\/sh$/,
    'the absolute entry after "." and an empty entry is the one used',
  );
});

function realSh(): string {
  for (const p of ['/usr/bin/sh', '/bin/sh']) if (existsSync(p)) return p;
  throw new Error('no sh in /usr/bin or /bin');
}
