import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { mkdirAll } from './mkdir-all.ts';
import { mkdirMissing } from './mkdir-missing.ts';

function scratch(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'cnits-mkdir-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('makes every missing component with the mode, and an existing directory is success', async (t) => {
  const base = scratch(t);
  const deep = join(base, 'a', 'b', 'c');
  mkdirMissing(deep, 0o700);
  for (const d of [join(base, 'a'), join(base, 'a', 'b'), deep]) t.equal(statSync(d).mode & 0o777, 0o700, `${d} made 0700`);
  t.doesNotThrow(() => mkdirMissing(deep, 0o700), 'again: nothing to do');
  t.doesNotThrow(() => mkdirMissing(base, 0o755), 'an existing parent');
});

t.test("a file on the way fails with Node's error; mkdirAll says it in Go's words", async (t) => {
  const base = scratch(t);
  writeFileSync(join(base, 'f'), '');
  const under = join(base, 'f', 'x', 'y');
  t.throws(() => mkdirMissing(join(base, 'f'), 0o700), { code: 'ENOTDIR', syscall: 'mkdir', path: join(base, 'f') }, 'the file itself');
  t.throws(() => mkdirMissing(under, 0o700), { code: 'ENOTDIR', syscall: 'stat', path: under }, 'a path below it');
  t.throws(() => mkdirAll(under, 0o700), { message: `stat ${under}: not a directory` });
});

// Node's recursive mkdir spins forever here: mkdir(2) answers ENOENT although the parent exists.
t.test('under /proc it fails at once, naming the component', async (t) => {
  t.throws(() => mkdirMissing('/proc/cnits-no-such-dir/x', 0o700), { code: 'ENOENT', syscall: 'mkdir', path: '/proc/cnits-no-such-dir' });
  t.throws(() => mkdirAll('/proc/cnits-no-such-dir/x', 0o700), { message: 'mkdir /proc/cnits-no-such-dir: no such file or directory' });
});
