// Where a plugin executable puts what it carries and loads from disk: its native addons and (the
// bundle form) its V8 code cache. Both forms use this one module, so they follow one set of
// rules: the single-file bundles (runtime/launcher.cjs, which scripts/build/build.ts gives a copy of
// this module) and the Bun binary (runtime/bun-natives.ts, its natives carried in its bundle).
//
// The plugins run as root, and a root process must never load code another user could have
// replaced. So the directory (and every parent, symlinks on the way resolved and owned by root or
// by us) must be owned by root or by us and not writable by anyone else, or the next place is
// taken (runtime/native-store-fs.ts); a stored native is loaded only when it holds
// exactly the embedded bytes, through the fd it was checked on (runtime/native-store-load.ts);
// and a build that has just written its files removes other builds' (runtime/native-store-sweep.ts).
import { closeSync, existsSync, lstatSync, mkdirSync, readFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { mkdirMissing } from '../lib/linux/mkdir-missing.ts';
import { assertSafeDir, errno, errorText, existingAncestor, isOurs, openVerified, UnsafeDirError, writeAtomic } from './native-store-fs.ts';
import { dlopenAnonymous, dlopenFd } from './native-store-load.ts';
import { sweep, type OwnBuild } from './native-store-sweep.ts';

export interface NativeInfo {
  /**
   * The file's sha256 in hex: its first 16 digits name it on disk, and a stored copy is used
   * only when its hash starts with all the digits given (at least 16; the builds give all 64).
   */
  readonly sha: string;
  readonly size: number;
}

export interface NativeStoreOptions {
  readonly natives: Readonly<Record<string, NativeInfo>>;
  /** the bytes of an embedded native, read only when it has to be written */
  readonly payload: (name: string) => Uint8Array;
  /** the process environment, read when the store is made (never at build time) */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * The id of the suite build this executable comes from, as it appears in the code cache names
   * (`<program>-<build>-<VERB>-<node version>.jscache`): caches with another id are swept.
   * Without one (a form that keeps no code cache), no cache counts as this build's.
   */
  readonly build?: string;
}

export interface NativeStore {
  /** The native's exports, extracted and dlopened on first use. Throws when no place is safe. */
  loadNative(name: string): unknown;
  /** A file of this name from the first safe directory that holds one, else undefined. */
  readCache(name: string): Buffer | undefined;
  /** Writes to the first safe directory; a failure only costs time, so it is swallowed. */
  writeCache(name: string, bytes: Uint8Array): void;
}

// /var/lib/cni/.native, else (a read-only /var/lib/cni on an immutable node OS) a directory on
// the /run tmpfs; with neither, an unnamed file (dlopenAnonymous). CNI_TS_NATIVE_DIR replaces
// the list of directories.
function stateDirsOf(env: NativeStoreOptions['env']): string[] {
  const dir = env['CNI_TS_NATIVE_DIR'];
  return dir ? [dir] : ['/var/lib/cni/.native', '/run/cni-ts/.native'];
}

function warn(line: string): void {
  try {
    writeSync(2, `${line}\n`);
  } catch {
    // no stderr: nobody to tell
  }
}

export function createNativeStore(o: NativeStoreOptions): NativeStore {
  const stateDirs = stateDirsOf(o.env);
  const uid = process.geteuid?.() ?? 0;
  const own: OwnBuild = { natives: o.natives, build: o.build, node: process.version };

  // Per directory: its real path when it exists (or was made) and is safe, else why not. A
  // refused directory passes to the next place like one that cannot be made: each place is
  // checked as strictly, and the last (an unnamed file) cannot be anyone else's. The refusal is
  // said on stderr, since it is someone's doing (stdout is the verb's result alone).
  const dirState = new Map<string, string | Error>();
  function prepareDir(dir: string): string | Error {
    let state = dirState.get(dir);
    if (state !== undefined) return state;
    try {
      if (!existsSync(dir)) {
        // Make nothing on a path another user controls.
        assertSafeDir(existingAncestor(dir), uid, { leaf: false });
        mkdirMissing(dirname(dir), 0o755);
        try {
          mkdirSync(dir, { mode: 0o700 });
        } catch (e) {
          if (errno(e) !== 'EEXIST') throw e;
        }
      }
      state = assertSafeDir(dir, uid);
    } catch (e) {
      state = e instanceof Error ? e : new Error(String(e));
      if (e instanceof UnsafeDirError) warn(`refusing to load native code from ${dir}: ${e.message}; trying the next place`);
    }
    dirState.set(dir, state);
    return state;
  }

  // An existing safe directory's real path, for reading only; never creates or refuses.
  function readableDir(dir: string): string | undefined {
    try {
      return assertSafeDir(dir, uid);
    } catch {
      return undefined;
    }
  }

  // Only after this build wrote a file of its own (its first run, or a file that was damaged or
  // swept by another build): every other start pays nothing for it.
  const swept = new Set<string>();
  function sweepOnce(dir: string): void {
    if (swept.has(dir)) return;
    swept.add(dir);
    sweep(dir, own);
  }

  // The embedded bytes, read (the bundle decodes them from its own file) at most once.
  const payloads = new Map<string, Uint8Array>();
  function payloadOf(name: string): Uint8Array {
    let bytes = payloads.get(name);
    if (bytes === undefined) payloads.set(name, (bytes = o.payload(name)));
    return bytes;
  }

  // The stored copy when it is intact, else a fresh one: an fd of the native's exact bytes, and
  // whether it was written now. Throws when the directory takes no file.
  function storedNative(name: string, n: NativeInfo, file: string): { fd: number; written: boolean } {
    const fd = openVerified(file, n.sha, n.size, uid);
    // No unlink first: rename replaces a damaged file atomically.
    return fd !== undefined ? { fd, written: false } : { fd: writeAtomic(file, payloadOf(name)), written: true };
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
      const real = prepareDir(dir);
      if (typeof real !== 'string') {
        reasons.push(`${dir}: ${real instanceof UnsafeDirError ? 'refused: ' : ''}${real.message}`);
        continue;
      }
      // The checked path, symlinks resolved: what was checked is what is used.
      const file = join(real, `${name}-${n.sha.slice(0, 16)}.node`);
      let stored: { fd: number; written: boolean };
      try {
        stored = storedNative(name, n, file);
      } catch (e) {
        reasons.push(`${dir}: ${errorText(e)}`);
        continue;
      }
      try {
        // A directory on a noexec mount takes the file but refuses to map it: try the next place.
        dlopenFd(mod, stored.fd, file);
      } catch (e) {
        reasons.push(errorText(e));
        continue;
      }
      if (stored.written) sweepOnce(real);
      done = true;
      break;
    }
    if (!done && !dlopenAnonymous(mod, payloadOf(name), reasons)) {
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
      try {
        const real = readableDir(dir);
        const file = real !== undefined ? join(real, name) : undefined;
        if (file !== undefined && isOurs(lstatSync(file), uid)) return readFileSync(file);
      } catch {
        // not here
      }
    }
    return undefined;
  }

  // The cache only ever goes to a safe directory; without one, every start compiles afresh.
  function writeCache(name: string, bytes: Uint8Array): void {
    for (const dir of stateDirs) {
      const real = prepareDir(dir);
      if (typeof real !== 'string') continue;
      try {
        closeSync(writeAtomic(join(real, name), bytes));
      } catch {
        continue; // try the next one
      }
      sweepOnce(real);
      return;
    }
  }

  return { loadNative, readCache, writeCache };
}
