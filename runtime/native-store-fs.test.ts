// The native store's path check over a made-up file system: symlinks on the way are followed
// only when root or we own them, and every directory the lookup passes (the link's own included)
// is judged. Real directories and links: runtime/native-store.test.ts, e2e/packaging/symlinked-state.test.ts.
import t from 'tap';
import { assertSafeDir, type PathFs, type PathStat, UnsafeDirError, walkPath } from './native-store-fs.ts';

type Entry = { uid?: number; mode?: number } & ({ dir: true } | { link: string } | { file: true });

// Every entry root-owned, directories 0755, unless given.
function fakeFs(entries: Record<string, Entry>): PathFs {
  const all: Record<string, Entry> = { '/': { dir: true }, ...entries };
  return {
    lstat(p: string): PathStat {
      const e = all[p];
      if (e === undefined) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
      return {
        uid: e.uid ?? 0,
        mode: e.mode ?? ('dir' in e ? 0o755 : 0o777),
        isDirectory: () => 'dir' in e,
        isSymbolicLink: () => 'link' in e,
      };
    },
    readlink(p: string): string {
      const e = all[p];
      if (e === undefined || !('link' in e)) throw Object.assign(new Error(`EINVAL: ${p}`), { code: 'EINVAL' });
      return e.link;
    },
  };
}

const D: Entry = { dir: true };
const plain = { '/var': D, '/var/lib': D, '/var/lib/cni': D, '/var/lib/cni/.native': { dir: true, mode: 0o700 } } as const;
// /var/lib/cni moved to a data disk
const moved = (link: Entry, more: Record<string, Entry> = {}) => ({
  '/var': D,
  '/var/lib': D,
  '/var/lib/cni': link,
  '/data': D,
  '/data/cni': D,
  '/data/cni/.native': { dir: true, mode: 0o700 } as Entry,
  ...more,
});

const refusal = (message: RegExp) => ({ constructor: UnsafeDirError, message });

t.test('a plain path: its real path is itself', async (t) => {
  t.equal(assertSafeDir('/var/lib/cni/.native', 0, { fs: fakeFs(plain) }), '/var/lib/cni/.native');
  t.same(
    walkPath('/var/lib/cni/.native', 0, fakeFs(plain)).passed.map(([d]) => d),
    ['/', '/var', '/var/lib', '/var/lib/cni', '/var/lib/cni/.native'],
  );
});

t.test('a root-owned symlink on the way is followed, and its target checked', async (t) => {
  const fs = fakeFs(moved({ link: '/data/cni' }));
  t.equal(assertSafeDir('/var/lib/cni/.native', 0, { fs }), '/data/cni/.native');
  t.same(
    walkPath('/var/lib/cni/.native', 0, fs).passed.map(([d]) => d),
    ['/', '/var', '/var/lib', '/data', '/data/cni', '/data/cni/.native'],
    'the directory holding the link, then the target chain',
  );
});

t.test('a relative target, with .. resolved after the link (as the kernel does)', async (t) => {
  const fs = fakeFs(moved({ link: '../../data/./cni' }));
  t.equal(assertSafeDir('/var/lib/cni/.native', 0, { fs }), '/data/cni/.native');
  t.equal(assertSafeDir('/var/lib/cni/../cni/.native', 0, { fs }), '/data/cni/.native', 'cni/.. is /data, not /var/lib');
});

t.test('a symlink owned by another user is refused', async (t) => {
  t.throws(
    () => assertSafeDir('/var/lib/cni/.native', 0, { fs: fakeFs(moved({ link: '/data/cni', uid: 65534 })) }),
    refusal(/^\/var\/lib\/cni is a symlink owned by uid 65534$/),
  );
});

t.test('a symlink we own, not being root, is followed', async (t) => {
  const fs = fakeFs(
    moved({ link: '/data/cni', uid: 1000 }, { '/data/cni': { dir: true, uid: 1000 }, '/data/cni/.native': { dir: true, uid: 1000, mode: 0o700 } }),
  );
  t.equal(assertSafeDir('/var/lib/cni/.native', 1000, { fs }), '/data/cni/.native');
  t.throws(() => assertSafeDir('/var/lib/cni/.native', 1001, { fs }), refusal(/symlink owned by uid 1000/));
});

t.test('a root-owned link in a directory others may write is refused: they could replace it', async (t) => {
  const fs = fakeFs(moved({ link: '/data/cni' }, { '/var/lib': { dir: true, mode: 0o775 } }));
  t.throws(() => assertSafeDir('/var/lib/cni/.native', 0, { fs }), refusal(/^\/var\/lib is writable by group or others$/));
});

t.test('a link whose target passes through a directory of another user is refused', async (t) => {
  t.throws(
    () => assertSafeDir('/var/lib/cni/.native', 0, { fs: fakeFs(moved({ link: '/data/cni' }, { '/data': { dir: true, uid: 1000 } })) }),
    refusal(/^\/data is owned by uid 1000$/),
  );
  t.throws(
    () => assertSafeDir('/var/lib/cni/.native', 0, { fs: fakeFs(moved({ link: '/data/cni' }, { '/data/cni': { dir: true, mode: 0o777 } })) }),
    refusal(/^\/data\/cni is writable by group or others$/),
  );
});

t.test('a link to a link: each one judged', async (t) => {
  const fs = (uid: number) => fakeFs(moved({ link: '/mnt/cni' }, { '/mnt': D, '/mnt/cni': { link: '/data/cni', uid } }));
  t.equal(assertSafeDir('/var/lib/cni/.native', 0, { fs: fs(0) }), '/data/cni/.native');
  t.throws(() => assertSafeDir('/var/lib/cni/.native', 0, { fs: fs(65534) }), refusal(/^\/mnt\/cni is a symlink owned by uid 65534$/));
});

t.test('a sticky directory others may write: fine on the way, not as the directory itself', async (t) => {
  const fs = fakeFs({ '/tmp': { dir: true, mode: 0o1777 }, '/tmp/n': { dir: true, mode: 0o700 }, '/tmp/l': { link: '/tmp/n' } });
  t.equal(assertSafeDir('/tmp/n', 0, { fs }), '/tmp/n');
  t.equal(assertSafeDir('/tmp/l', 0, { fs }), '/tmp/n', 'through a root-owned link in it');
  t.throws(() => assertSafeDir('/tmp', 0, { fs }), refusal(/^\/tmp is writable by group or others$/));
  t.equal(assertSafeDir('/tmp', 0, { fs, leaf: false }), '/tmp', 'as the parent of a directory about to be made');
});

t.test('what is no directory, or a loop, is an error but no refusal', async (t) => {
  const fs = fakeFs({ '/f': { file: true }, '/a': { link: '/b' }, '/b': { link: '/a' }, '/l': { link: '/f' } });
  for (const [path, message] of [
    ['/f/native', /^\/f is not a directory$/],
    ['/l/native', /^\/f is not a directory$/],
    ['/a/native', /too many levels of symbolic links/],
  ] as const) {
    const e = t.throws(() => assertSafeDir(path, 0, { fs }), { message }, path);
    t.type(e, Error);
    t.notOk(e instanceof UnsafeDirError, `${path}: not a refusal, so nothing is said on stderr`);
  }
  t.throws(() => assertSafeDir('/missing', 0, { fs }), { code: 'ENOENT' });
});
