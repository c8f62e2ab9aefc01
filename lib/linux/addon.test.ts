// The addon parts that need no privilege. withNetns needs CAP_SYS_ADMIN even
// for our own netns: it is covered in e2e/linux/linux-layer.test.ts.
import t from 'tap';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeModule } from './natives.ts';
import { LOCK_EX, LOCK_NB, LOCK_SH, LOCK_UN, flock, isNetnsFd } from './addon.ts';

const dir = mkdtempSync(join(tmpdir(), 'cni-addon-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('LOCK_* match the addon', async (t) => {
  const m = nativeModule('cni_native') as Record<string, number>;
  t.same({ LOCK_SH, LOCK_EX, LOCK_NB, LOCK_UN }, { LOCK_SH: m.LOCK_SH, LOCK_EX: m.LOCK_EX, LOCK_NB: m.LOCK_NB, LOCK_UN: m.LOCK_UN });
});

t.test('flock', async (t) => {
  const file = join(dir, 'lock');
  writeFileSync(file, '');
  // flock locks belong to the open file description: two opens conflict even in one process.
  const a = openSync(file, 'r');
  const b = openSync(file, 'r');
  t.teardown(() => [a, b].forEach((fd) => closeSync(fd)));
  flock(a, LOCK_EX);
  t.throws(() => flock(b, LOCK_EX | LOCK_NB), { code: 'EWOULDBLOCK', errno: 11, syscall: 'flock' });
  t.throws(() => flock(b, LOCK_SH | LOCK_NB), { code: 'EWOULDBLOCK' });
  flock(a, LOCK_UN);
  flock(b, LOCK_SH | LOCK_NB);
  flock(a, LOCK_SH | LOCK_NB);
  t.throws(() => flock(9999, LOCK_EX), { code: 'EBADF', errno: 9 });
  t.throws(() => flock(a, 0), { code: 'EINVAL' });
  t.throws(() => flock(-1, LOCK_EX), RangeError);
  t.throws(() => flock('3' as unknown as number, LOCK_EX), TypeError);
});

t.test('isNetnsFd', async (t) => {
  const ns = openSync('/proc/self/ns/net', 'r');
  const file = join(dir, 'regular');
  writeFileSync(file, '');
  const reg = openSync(file, 'r');
  const dirFd = openSync(dir, 'r');
  t.teardown(() => [ns, reg, dirFd].forEach((fd) => closeSync(fd)));
  t.equal(isNetnsFd(ns), true);
  t.equal(isNetnsFd(reg), false);
  t.equal(isNetnsFd(dirFd), false);
  t.throws(() => isNetnsFd(9999), { code: 'EBADF' });
});
