// The file-system rules of the native store (runtime/native-store.ts): which directories are
// safe to load code from, how a file is written so that no reader sees part of it, and how a
// stored file is judged before it is reused.
import {
  type Stats,
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { hexDigest } from '../lib/cni-spec/digest.ts';

export class UnsafeDirError extends Error {}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** What the path check reads of an entry: lstat and readlink, injectable for tests without root. */
export interface PathStat {
  readonly uid: number;
  readonly mode: number;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}
export interface PathFs {
  lstat(path: string): PathStat;
  readlink(path: string): string;
}
const nodeFs: PathFs = { lstat: (p) => lstatSync(p), readlink: (p) => readlinkSync(p, 'utf8') };

// The kernel's own limit (MAXSYMLINKS) on links followed in one lookup.
const MAX_LINKS = 40;

const isOwner = (uid: number, ours: number) => uid === 0 || uid === ours;

/**
 * Walks `dir` the way the kernel resolves it and returns its real path with every directory the
 * lookup passed through, in order ('/' first). A symlink on the way (a /var/lib/cni moved to a
 * data disk) is followed only when root or we own it; the directory holding it is among those
 * passed, so who can replace the link is checked with the rest.
 */
export function walkPath(dir: string, uid: number, fs: PathFs = nodeFs): { real: string; passed: [string, PathStat][] } {
  const pending = parts(absolute(dir));
  const passed: [string, PathStat][] = [['/', fs.lstat('/')]];
  let at = '/';
  let links = 0;
  for (let c = pending.pop(); c !== undefined; c = pending.pop()) {
    if (c === '..') {
      at = dirname(at);
      continue;
    }
    const next = at === '/' ? `/${c}` : `${at}/${c}`;
    const st = fs.lstat(next);
    if (st.isSymbolicLink()) {
      if (!isOwner(st.uid, uid)) throw new UnsafeDirError(`${next} is a symlink owned by uid ${st.uid}`);
      if (++links > MAX_LINKS) throw new Error(`${dir}: too many levels of symbolic links`);
      const target = fs.readlink(next);
      if (target.startsWith('/')) at = '/';
      pending.push(...parts(target));
      continue;
    }
    if (!st.isDirectory()) throw new Error(`${next} is not a directory`);
    passed.push([next, st]);
    at = next;
  }
  return { real: at, passed };
}

// Not path.resolve: it drops `x/..` before x is looked up, where the kernel follows x first.
const absolute = (path: string) => (isAbsolute(path) ? path : `${process.cwd()}/${path}`);

// A path's components, last first (a stack to pop), without the empty and '.' ones.
function parts(path: string): string[] {
  return path
    .split('/')
    .filter((c) => c !== '' && c !== '.')
    .reverse();
}

/**
 * Throws unless every directory on the way to `dir` (symlinks resolved, see walkPath) is owned by
 * root or by us and not writable by group or others: whoever can rename an entry on the way can
 * swap the whole directory. A sticky one (like /tmp) is fine on the way, as there only an entry's
 * owner may rename it, but not as `dir` itself (`leaf`: false for a parent about to get a
 * directory of ours). Returns the real path.
 */
export function assertSafeDir(dir: string, uid: number, o: { leaf?: boolean; fs?: PathFs } = {}): string {
  const { real, passed } = walkPath(dir, uid, o.fs);
  for (const [d, st] of passed) {
    if (!isOwner(st.uid, uid)) throw new UnsafeDirError(`${d} is owned by uid ${st.uid}`);
    const writableByOthers = (st.mode & 0o022) !== 0;
    const sticky = (st.mode & 0o1000) !== 0;
    if (writableByOthers && !(sticky && (d !== real || o.leaf === false))) throw new UnsafeDirError(`${d} is writable by group or others`);
  }
  return real;
}

/** The nearest of `dir` and its parents that exists (following symlinks), '/' at the latest. */
export function existingAncestor(dir: string): string {
  let d = absolute(dir);
  while (!existsSync(d) && d !== dirname(d)) d = dirname(d);
  return d;
}

/** A regular file we (or root) own that nobody else may write: the only kind we reuse. */
export function isOurs(st: Stats, uid: number): boolean {
  return st.isFile() && (st.uid === 0 || st.uid === uid) && (st.mode & 0o022) === 0;
}

// write(2) may write less than asked (a full disk gives a short count before ENOSPC): a file
// is complete only when every byte went out.
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length;) {
    const n = writeSync(fd, bytes, off, bytes.length - off);
    if (n <= 0) throw new Error(`short write: ${off} of ${bytes.length} bytes`);
    off += n;
  }
}

// A name no other writer has: writers in other PID namespaces sharing the directory may have
// our pid, so the pid alone is not enough. O_EXCL makes a clash an error, never a shared file.
function tempName(file: string): string {
  const rand = Math.floor(Math.random() * 2 ** 48).toString(36);
  return `${file}.${process.pid.toString(36)}-${process.hrtime.bigint().toString(36)}-${rand}.tmp`;
}

/** Temp names writeAtomic makes for `<file>`: `<file>.<suffix>.tmp`. */
export const TEMP_SUFFIX = /\.[0-9a-z-]+\.tmp$/;

const EXCL = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/**
 * Exclusive create of a fresh temp name, every byte written, fsync, then atomic rename: a reader
 * sees either no file or a complete one, and two writers racing both succeed. Returns the open
 * fd of the file now in place, for the caller to load through or close.
 */
export function writeAtomic(file: string, bytes: Uint8Array): number {
  let tmp = tempName(file);
  let fd: number;
  for (let attempt = 0; ; attempt++) {
    try {
      fd = openSync(tmp, EXCL, 0o600);
      break;
    } catch (e) {
      if (errno(e) !== 'EEXIST' || attempt >= 3) throw e;
      tmp = tempName(file);
    }
  }
  try {
    writeAll(fd, bytes);
    fsyncSync(fd);
    renameSync(tmp, file);
    return fd;
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // renamed already, or never made
    }
    throw e;
  }
}

/**
 * The stored file opened for loading when it is ours (see isOurs), `size` bytes long, and its
 * sha256 (hex) starts with `sha`; else undefined. The check and the load go through the one fd,
 * so the file cannot change between them, and a sweep that unlinks the name afterwards cannot
 * take it away.
 */
export function openVerified(file: string, sha: string, size: number, uid: number): number | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (isOurs(st, uid) && st.size === size && sha.length >= 16 && sha256Of(fd, size).startsWith(sha)) return fd;
  } catch {
    // unreadable: replaced like a damaged one
  }
  closeSync(fd);
  return undefined;
}

// Hashing the stored copy is the cheap way to check all of it: the bundle would have to read
// and base64-decode its embedded copy to compare bytes, which costs several times more (measured),
// and the digest is cheap in both runtimes (lib/cni-spec/digest.ts).
function sha256Of(fd: number, size: number): string {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  for (let n; got < size && (n = readSync(fd, buf, got, size - got, got)) > 0;) got += n;
  if (got !== size) return '';
  return hexDigest('sha256', buf);
}
