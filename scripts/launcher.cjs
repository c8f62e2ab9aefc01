'use strict';
// Launcher of a single-file plugin executable. scripts/build.ts fills in the
// /*@@...@@*/ slots and appends the payload: the plugin's bundled code and the
// native addons, base64 in one trailing comment, located by byte offsets.
//
// Why a launcher at all: a runtime waits on every ADD, and compiling the bundle
// is a large part of a plugin's start-up. V8 can reuse a code cache, but only
// for code compiled through vm.Script, so the bundle travels as data. Data in a
// comment costs Node's loader a fast skip; the same data as string literals
// cost ~4 ms of parsing and GC per start (measured).
//
// Natives and the code cache live in a directory that must be owned by root (or
// by us) and not writable by anyone else: a root process must never load code
// another user could have replaced.
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');

const PLUGIN = /*@@PLUGIN@@*/ '';
const BUNDLE_HASH = /*@@BUNDLE_HASH@@*/ '';
// {offset, length} of the base64 bundle, and per native {sha, size, offset, length}.
const BUNDLE_AT = /*@@BUNDLE_AT@@*/ {};
const NATIVES = /*@@NATIVES@@*/ {};

function readPayload(at) {
  const fd = fs.openSync(__filename, 'r');
  try {
    const b64 = Buffer.allocUnsafe(at.length);
    if (fs.readSync(fd, b64, 0, at.length, at.offset) !== at.length) throw new Error(`${__filename} is truncated`);
    return Buffer.from(b64.toString('latin1'), 'base64');
  } finally {
    fs.closeSync(fd);
  }
}

// Where natives and the code cache live: /var/lib/cni/.native, else (a read-only /var/lib/cni
// on an immutable node OS) a directory on the /run tmpfs. CNI_TS_NATIVE_DIR replaces the list.
const stateDirs = process.env.CNI_TS_NATIVE_DIR ? [process.env.CNI_TS_NATIVE_DIR] : ['/var/lib/cni/.native', '/run/cni-ts/.native'];
const uid = typeof process.geteuid === 'function' ? process.geteuid() : 0;

class UnsafeDirError extends Error {}

// Every ancestor must be safe too: whoever can rename a parent can swap the
// whole directory. Sticky directories (like /tmp) are fine, since there only the
// owner may rename an entry.
function assertSafeDir(dir) {
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
function mkdirAll(dir, mode) {
  const missing = [];
  for (let d = dir; !fs.existsSync(d); d = path.dirname(d)) {
    missing.push(d);
    if (d === path.dirname(d)) break;
  }
  for (const d of missing.reverse()) {
    try {
      fs.mkdirSync(d, { mode });
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
  }
}

// Per directory: 'ok' (exists and safe), or the file-system error that kept us from making
// it. An existing directory that is not safe throws: that is someone's doing, and we refuse
// rather than look elsewhere.
const dirState = new Map();
function prepareDir(dir) {
  let state = dirState.get(dir);
  if (state !== undefined) return state;
  try {
    if (!fs.existsSync(dir)) {
      mkdirAll(path.dirname(dir), 0o755);
      try {
        fs.mkdirSync(dir, { mode: 0o700 });
      } catch (e) {
        if (e.code !== 'EEXIST') throw e;
      }
    }
    state = 'ok';
  } catch (e) {
    state = e;
  }
  if (state === 'ok') {
    try {
      assertSafeDir(dir);
    } catch (e) {
      throw new UnsafeDirError(`refusing to load native code from ${dir}: ${e.message}`);
    }
  }
  dirState.set(dir, state);
  return state;
}

// An existing safe directory, for reading only; never creates or refuses.
function readableDir(dir) {
  try {
    assertSafeDir(dir);
    return true;
  } catch {
    return false;
  }
}

// Exclusive create of a temp name, fsync, then atomic rename: a reader sees
// either no file or a complete one, and two plugins racing both succeed.
function writeAtomic(file, bytes) {
  const tmp = `${file}.${process.pid}.tmp`;
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;
  let fd;
  try {
    fd = fs.openSync(tmp, flags, 0o600);
  } catch (e) {
    // Left by a killed process that had our pid: no live process owns that name.
    if (e.code !== 'EEXIST') throw e;
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
    } catch {}
    try {
      fs.unlinkSync(tmp);
    } catch {}
    throw e;
  }
}

function isReusable(file, size) {
  try {
    const st = fs.lstatSync(file);
    return st.isFile() && st.size === size && (st.uid === 0 || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

// With no directory we may write, a native still loads from an unnamed file (O_TMPFILE):
// no other user can open, link or replace an inode that has no name and whose only handle is
// our fd, and dlopen reads it through /proc/self/fd. A noexec mount refuses the mapping, so
// each candidate filesystem is tried in turn.
const O_TMPFILE = 0o20000000 | fs.constants.O_DIRECTORY;
function dlopenAnonymous(mod, bytes, reasons) {
  for (const dir of ['/run', '/dev/shm', '/tmp']) {
    let fd;
    try {
      fd = fs.openSync(dir, O_TMPFILE | fs.constants.O_RDWR, 0o700);
      fs.writeSync(fd, bytes);
      process.dlopen(mod, `/proc/self/fd/${fd}`);
      return true;
    } catch (e) {
      reasons.push(`unnamed file in ${dir}: ${e.message.split('\n')[0]}`);
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }
  return false;
}

const loaded = new Map();
function loadNative(name) {
  const hit = loaded.get(name);
  if (hit) return hit;
  const n = NATIVES[name];
  if (!n) throw new Error(`native module ${name} is not embedded in this executable`);
  const mod = { exports: {} };
  const reasons = [];
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
      if (!isReusable(file, n.size)) writeAtomic(file, readPayload(n));
    } catch (e) {
      reasons.push(`${dir}: ${e.message}`);
      continue;
    }
    process.dlopen(mod, file);
    done = true;
    break;
  }
  if (!done && !dlopenAnonymous(mod, readPayload(n), reasons)) {
    throw new Error(
      `cannot load native module ${name}: no safe writable place for it (${reasons.join('; ')}); ` +
        'provide a directory owned by root and writable only by it: make /var/lib/cni or /run writable, or set CNI_TS_NATIVE_DIR',
    );
  }
  loaded.set(name, mod.exports);
  return mod.exports;
}

function readCache(name) {
  for (const dir of stateDirs) {
    const file = path.join(dir, name);
    try {
      if (readableDir(dir) && isReusable(file, fs.lstatSync(file).size)) return fs.readFileSync(file);
    } catch {
      // not here
    }
  }
  return undefined;
}

// The cache only ever goes to a safe directory; without one, every start compiles afresh.
function writeCache(name, bytes) {
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

const cacheName = `${PLUGIN}-${BUNDLE_HASH}-${process.version}.jscache`;
const cached = readCache(cacheName);
const script = new vm.Script(
  // The bundle is ASCII (esbuild escapes the rest), so latin1 is exact and cheapest.
  `(function (exports, require, module, __filename, __dirname, __cniLoadNative) {${readPayload(BUNDLE_AT).toString('latin1')}\n})`,
  { filename: __filename, cachedData: cached },
);

// The cache is written after the plugin ran, so it also holds the functions
// that were compiled lazily on the way: that is where the start-up time goes.
if (cached === undefined || script.cachedDataRejected) {
  process.once('exit', () => {
    // A missing cache only costs time; never fail a CNI verb over it.
    try {
      writeCache(cacheName, script.createCachedData());
    } catch {}
  });
}

// The dispatcher inside the bundle turns every error into a CNI error object; this
// catches what fails before it runs (module initialisation), in the same form.
try {
  script.runInThisContext()(module.exports, require, module, __filename, __dirname, loadNative);
} catch (err) {
  const msg = err instanceof Error ? err.message : String(err);
  fs.writeSync(1, `${JSON.stringify({ code: 999, msg }, null, 4)}\n`);
  process.exitCode = 1;
}
