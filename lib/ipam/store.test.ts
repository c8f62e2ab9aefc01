import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { flock, LOCK_EX, LOCK_NB } from '../linux/addon.ts';
import { formatAddr, parseAddr, type Addr } from './addr.ts';
import { legacyKey, ownerKey, parseOwner, Store, withStore } from './store.ts';
import { tempDir } from './test-request.ts';

const ip = (s: string): Addr => parseAddr(s) as Addr;

t.test('the reference format: one 0600 file per address, "<id>\\r\\n<ifname>", last_reserved_ip.<set>', async (t) => {
  const dir = join(tempDir(t), 'net1');
  withStore(dir, (s) => {
    t.equal(s.reserve('  ctr1 ', 'eth0', ip('10.1.0.2')), true);
    t.equal(s.reserve('ctr1', 'eth1', ip('fd00::2')), true);
    t.equal(s.reserve('ctr2', 'eth0', ip('10.1.0.2')), false, 'O_EXCL: an address already held is not taken over');
    t.equal(s.lastReserved(0), undefined, 'the round-robin marker waits for the whole ADD');
    s.recordLastReserved(0, ip('10.1.0.2'));
    s.recordLastReserved(1, ip('fd00::2'));
  });
  t.same(readdirSync(dir).sort(), ['10.1.0.2', 'fd00::2', 'last_reserved_ip.0', 'last_reserved_ip.1', 'lock']);
  t.equal(readFileSync(join(dir, '10.1.0.2'), 'latin1'), 'ctr1\r\neth0', 'the container id is trimmed');
  t.equal(readFileSync(join(dir, 'fd00::2'), 'latin1'), 'ctr1\r\neth1');
  t.equal(readFileSync(join(dir, 'last_reserved_ip.0'), 'latin1'), '10.1.0.2', 'no newline, like the reference');
  t.equal(readFileSync(join(dir, 'last_reserved_ip.1'), 'latin1'), 'fd00::2');
  t.equal(statSync(join(dir, '10.1.0.2')).mode & 0o777, 0o600);
  t.equal(statSync(dir).mode & 0o777, 0o755 & ~process.umask());
  withStore(dir, (s) => {
    t.equal(formatAddr(s.lastReserved(0) as Addr), '10.1.0.2');
    t.equal(s.lastReserved(7), undefined);
  });
});

t.test('allocations: only files named after an address, content trimmed', async (t) => {
  const dir = join(tempDir(t), 'net1');
  mkdirSync(dir);
  writeFileSync(join(dir, '10.1.0.3'), 'ctr9\r\neth0\n');
  writeFileSync(join(dir, '10.1.0.4'), 'old-ctr');
  writeFileSync(join(dir, 'last_reserved_ip.0'), '10.1.0.4');
  writeFileSync(join(dir, 'notes.txt'), 'ctr9\r\neth0');
  mkdirSync(join(dir, '10.1.0.5'));
  const all = withStore(dir, (s) => s.allocations()).sort((a, b) => a.name.localeCompare(b.name));
  t.same(
    all.map((a) => [a.name, a.key]),
    [
      ['10.1.0.3', 'ctr9\r\neth0'],
      ['10.1.0.4', 'old-ctr'],
    ],
  );
  t.same(parseOwner('ctr9\r\neth0'), { containerId: 'ctr9', ifname: 'eth0' });
  t.same(parseOwner('old-ctr'), { containerId: 'old-ctr' });
  t.equal(ownerKey(' c ', 'eth0'), 'c\r\neth0');
  t.equal(legacyKey(' c '), 'c');
  const errors = withStore(dir, (s) => s.release([...all, { name: '10.9.9.9', ip: ip('10.9.9.9'), key: 'x' }]));
  t.same(errors, [], 'a file already gone counts as released');
  t.same(readdirSync(dir).sort(), ['10.1.0.5', 'last_reserved_ip.0', 'lock', 'notes.txt']);
});

t.test('an empty address file (an ADD killed between create and write) is released under the lock', async (t) => {
  const dir = join(tempDir(t), 'net1');
  mkdirSync(dir);
  writeFileSync(join(dir, '10.1.0.5'), '');
  writeFileSync(join(dir, '10.1.0.6'), 'ctr1\r\neth0');
  const found = withStore(dir, (s) => s.allocations().map((a) => a.name));
  t.same(found, ['10.1.0.6'], 'not an allocation of anyone');
  t.same(readdirSync(dir).sort(), ['10.1.0.6', 'lock'], 'and gone, so the address is free again');
  withStore(dir, (s) => t.equal(s.reserve('ctr2', 'eth0', ip('10.1.0.5')), true, 'a later ADD can take it'));
});

t.test('the lock is an exclusive flock on <dir>/lock, held until close', async (t) => {
  const dir = join(tempDir(t), 'net1');
  const store = Store.open(dir);
  const fd = openSync(join(dir, 'lock'), 'r');
  t.teardown(() => closeSync(fd));
  t.throws(() => flock(fd, LOCK_EX | LOCK_NB), { code: 'EWOULDBLOCK' }, 'held');
  store.close();
  t.doesNotThrow(() => flock(fd, LOCK_EX | LOCK_NB), 'free after close');
});

t.test('openIfExists does not create the directory', async (t) => {
  const base = tempDir(t);
  t.equal(Store.openIfExists(join(base, 'nope')), undefined);
  t.same(readdirSync(base), []);
});

// A link planted in the data directory must not make root write (or create) a file elsewhere.
// The reference follows both links (os.WriteFile, and go-filemutex's open with O_CREAT).
t.test('links planted at last_reserved_ip and lock never redirect a write', async (t) => {
  const root = tempDir(t);
  const dir = join(root, 'net1');
  mkdirSync(dir);
  const victim = join(root, 'victim');
  writeFileSync(victim, 'precious');
  symlinkSync(victim, join(dir, 'last_reserved_ip.0'));
  withStore(dir, (s) => {
    t.equal(s.lastReserved(0), undefined, 'the link is not read through');
    s.recordLastReserved(0, ip('10.1.0.9'));
  });
  t.equal(readFileSync(victim, 'latin1'), 'precious', 'the file the link pointed at is untouched');
  t.ok(lstatSync(join(dir, 'last_reserved_ip.0')).isFile(), 'the link was replaced by a regular file');
  t.equal(readFileSync(join(dir, 'last_reserved_ip.0'), 'latin1'), '10.1.0.9');
  t.same(readdirSync(dir).sort(), ['last_reserved_ip.0', 'lock'], 'no temporary file left');

  const lockDir = join(root, 'net2');
  mkdirSync(lockDir);
  symlinkSync(victim, join(lockDir, 'lock'));
  t.throws(() => Store.open(lockDir), { message: `refusing lock file ${join(lockDir, 'lock')}: it is a symbolic link` });
  const absent = join(root, 'absent');
  const dangling = join(root, 'net3');
  mkdirSync(dangling);
  symlinkSync(absent, join(dangling, 'lock'));
  t.throws(() => Store.open(dangling), /symbolic link/);
  t.notOk(existsSync(absent), 'a dangling link does not make root create its target');
  t.equal(readFileSync(victim, 'latin1'), 'precious');
});

t.test('a FIFO where a file of ours belongs is neither waited on nor used', async (t) => {
  const dir = join(tempDir(t), 'net1');
  mkdirSync(dir);
  execFileSync('mkfifo', [join(dir, 'last_reserved_ip.0')]);
  withStore(dir, (s) => t.equal(s.lastReserved(0), undefined));
  const other = join(tempDir(t), 'net2');
  mkdirSync(other);
  execFileSync('mkfifo', [join(other, 'lock')]);
  t.throws(() => Store.open(other), { message: `refusing lock file ${join(other, 'lock')}: not a regular file` });
});
