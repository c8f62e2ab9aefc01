// Where a plugin executable puts what it carries and loads from disk: its native addons and (the
// bundle form) its V8 code cache. Both forms use this one module, so they follow one set of
// rules: the single-file bundles (scripts/launcher.cjs, which scripts/build.ts gives a copy of
// this module) and the SEA binary (scripts/sea-main.ts, its natives being SEA assets).
//
// The plugins run as root, and a root process must never load code another user could have
// replaced. So the directory (and every parent) must be owned by root or by us and not writable
// by anyone else; files are written under a temp name opened with O_EXCL, fsynced, and renamed
// into place, so a reader sees no file or a whole one and parallel first starts all succeed.
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface NativeInfo {
  /** the first 16 hex digits of the file's sha256: part of its name on disk */
  readonly sha: string;
  readonly size: number;
}

export interface NativeStoreOptions {
  readonly natives: Readonly<Record<string, NativeInfo>>;
  /** the bytes of an embedded native, read only when it has to be written */
  readonly payload: (name: string) => Uint8Array;
  /** the process environment, read when the store is made (never at build time) */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface NativeStore {
  /** The native's exports, extracted and dlopened on first use. Throws when no place is safe. */
  loadNative(name: string): unknown;
  /** A file of this name from the first safe directory that holds one, else undefined. */
  readCache(name: string): Buffer | undefined;
  /** Writes to the first safe directory; a failure only costs time, so it is swallowed. */
  writeCache(name: string, bytes: Uint8Array): void;
}

class UnsafeDirError extends Error {}

// /var/lib/cni/.native, else (a read-only /var/lib/cni on an immutable node OS) a directory on
// the /run tmpfs. CNI_TS_NATIVE_DIR replaces the list.
function stateDirsOf(env: NativeStoreOptions['env']): string[] {
  const dir = env['CNI_TS_NATIVE_DIR'];
  return dir ? [dir] : ['/var/lib/cni/.native', '/run/cni-ts/.native'];
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

// Every ancestor must be safe too: whoever can rename a parent can swap the whole directory.
// Sticky directories (like /tmp) are fine, since there only the owner may rename an entry.
function assertSafeDir(dir: string, uid: number): void {
  for (let d = dir; ; d = path.dirname(d)) {
    const st = fs.lstatSync(d);
    if (!st.isDirectory()) throw new UnsafeDirError(`${d} is not a directory`);
    if (st.uid !== 0 && st.uid !== uid) throw new UnsafeDirError(`${d} is owned by uid ${st.uid}`);
    const writableByOthers = (st.mode & 0o022) !== 0;
    const sticky = (st.mode & 0o1000) !== 0;
    if (writableByOthers && !(sticky && d !== dir)) throw new UnsafeDirError(`${d} is writable by group or others`);
    if (d === path.dirname(d)) return;
  }
}

// One mkdir per missing component (Node's recursive mkdir spins on ENOENT under /proc).
function mkdirAll(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) {
    missing.push(d);
    if (d === path.dirname(d)) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, { mode });
    } catch (e) {
      if (errno(e) !== 'EEXIST') throw e;
    }
  }
}

// Exclusive create of a temp name, fsync, then atomic rename: a reader sees either no file or
// a complete one, and two plugins racing both succeed.
function writeAtomic(file: string, bytes: Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;
  let fd: number;
  try {
    fd = fs.openSync(tmp, flags, 0o600);
  } catch (e) {
    // Left by a killed process that had our pid: no live process owns that name.
    if (errno(e) !== 'EEXIST') throw e;
    fs.unlinkSync(tmp);
    fd = fs.openSync(tmp, flags, 0o600);
  }
  try {
    fs.writeSync(fd, bytes);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.closeSync(fd);
    } catch {
      // already closed by the failed step
    }
    try {
      fs.unlinkSync(tmp);
    } catch {
      // renamed already, or never made
    }
    throw e;
  }
}

function isReusable(file: string, size: number, uid: number): boolean {
  try {
    const st = fs.lstatSync(file);
    return st.isFile() && st.size === size && (st.uid === 0 || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

// With no directory we may write, a native still loads from an unnamed file (O_TMPFILE): no
// other user can open, link or replace an inode that has no name and whose only handle is our
// fd, and dlopen reads it through /proc/self/fd. A noexec mount refuses the mapping, so each
// candidate filesystem is tried in turn.
const O_TMPFILE = 0o20000000 | fs.constants.O_DIRECTORY;
function dlopenAnonymous(mod: { exports: unknown }, bytes: Uint8Array, reasons: string[]): boolean {
  for (const dir of ['/run', '/dev/shm', '/tmp']) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(dir, O_TMPFILE | fs.constants.O_RDWR, 0o700);
      fs.writeSync(fd, bytes);
      process.dlopen(mod, `/proc/self/fd/${fd}`);
      return true;
    } catch (e) {
      reasons.push(`unnamed file in ${dir}: ${errorText(e).split('\n')[0]}`);
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }
  return false;
}

export function createNativeStore(o: NativeStoreOptions): NativeStore {
  const stateDirs = stateDirsOf(o.env);
  const uid = process.geteuid?.() ?? 0;

  // Per directory: 'ok' (exists and safe), or the file-system error that kept us from making
  // it. An existing directory that is not safe throws: that is someone's doing, and we refuse
  // rather than look elsewhere.
  const dirState = new Map<string, 'ok' | Error>();
  function prepareDir(dir: string): 'ok' | Error {
    let state = dirState.get(dir);
    if (state !== undefined) return state;
    try {
      if (!fs.existsSync(dir)) {
        mkdirAll(path.dirname(dir), 0o755);
        try {
          fs.mkdirSync(dir, { mode: 0o700 });
        } catch (e) {
          if (errno(e) !== 'EEXIST') throw e;
        }
      }
      state = 'ok';
    } catch (e) {
      state = e instanceof Error ? e : new Error(String(e));
    }
    if (state === 'ok') {
      try {
        assertSafeDir(dir, uid);
      } catch (e) {
        throw new UnsafeDirError(`refusing to load native code from ${dir}: ${errorText(e)}`);
      }
    }
    dirState.set(dir, state);
    return state;
  }

  // An existing safe directory, for reading only; never creates or refuses.
  function readableDir(dir: string): boolean {
    try {
      assertSafeDir(dir, uid);
      return true;
    } catch {
      return false;
    }
  }

  const loaded = new Map<string, unknown>();
  function loadNative(name: string): unknown {
    if (loaded.has(name)) return loaded.get(name);
    const n = o.natives[name];
    if (!n) throw new Error(`native module ${name} is not embedded in this executable`);
    const mod = { exports: {} as unknown };
    const reasons: string[] = [];
    let done = false;
    for (const dir of stateDirs) {
      const state = prepareDir(dir);
      if (state !== 'ok') {
        reasons.push(`${dir}: ${state.message}`);
        continue;
      }
      const file = path.join(dir, `${name}-${n.sha}.node`);
      try {
        // No unlink first: rename replaces a damaged file atomically, while an unlink could remove
        // the good file a plugin starting in parallel has just written and is about to load.
        if (!isReusable(file, n.size, uid)) writeAtomic(file, o.payload(name));
      } catch (e) {
        reasons.push(`${dir}: ${errorText(e)}`);
        continue;
      }
      process.dlopen(mod, file);
      done = true;
      break;
    }
    if (!done && !dlopenAnonymous(mod, o.payload(name), reasons)) {
      throw new Error(
        `cannot load native module ${name}: no safe writable place for it (${reasons.join('; ')}); ` +
          'provide a directory owned by root and writable only by it: make /var/lib/cni or /run writable, or set CNI_TS_NATIVE_DIR',
      );
    }
    loaded.set(name, mod.exports);
    return mod.exports;
  }

  function readCache(name: string): Buffer | undefined {
    for (const dir of stateDirs) {
      const file = path.join(dir, name);
      try {
        if (readableDir(dir) && isReusable(file, fs.lstatSync(file).size, uid)) return fs.readFileSync(file);
      } catch {
        // not here
      }
    }
    return undefined;
  }

  // The cache only ever goes to a safe directory; without one, every start compiles afresh.
  function writeCache(name: string, bytes: Uint8Array): void {
    for (const dir of stateDirs) {
      try {
        if (prepareDir(dir) !== 'ok') continue;
        writeAtomic(path.join(dir, name), bytes);
        return;
      } catch {
        // try the next one
      }
    }
  }

  return { loadNative, readCache, writeCache };
}
