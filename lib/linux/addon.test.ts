// The addon parts that need no privilege. withNetns needs CAP_SYS_ADMIN even
// for our own netns: it is covered in e2e/linux/linux-layer.test.ts.
import t from 'tap';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeModule } from './natives.ts';
import { LOCK_EX, LOCK_NB, LOCK_SH, LOCK_UN, flock, isNetnsFd, tunCreate } from './addon.ts';

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

t.test('tunCreate refuses bad arguments before it enters any netns or opens /dev/net/tun', async (t) => {
  const ok = { name: 'tap0', flags: 2, owner: -1, group: -1 };
  // IFNAMSIZ is 16 with the NUL: a longer name would be cut by the copy, so it is refused whole.
  t.throws(() => tunCreate(0, { ...ok, name: 'a'.repeat(16) }), TypeError, '16 bytes');
  t.throws(() => tunCreate(0, { ...ok, name: '' }), TypeError, 'empty');
  t.throws(() => tunCreate(0, { ...ok, name: 'ta\0p' }), TypeError, 'a NUL inside');
  t.throws(() => tunCreate(0, { ...ok, owner: -2 }), RangeError, 'owner below -1');
  t.throws(() => tunCreate(0, { ...ok, group: 2 ** 32 }), RangeError, 'group above uint32');
  t.throws(() => tunCreate(0, { ...ok, owner: 1.5 }), RangeError, 'a fraction');
  t.throws(() => tunCreate(-1, ok), RangeError, 'a negative netns fd');
});
