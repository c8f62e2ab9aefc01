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

const PLUGIN = /*@@PLUGIN@@*/'';
const BUNDLE_HASH = /*@@BUNDLE_HASH@@*/'';
// {offset, length} of the base64 bundle, and per native {sha, size, offset, length}.
const BUNDLE_AT = /*@@BUNDLE_AT@@*/{};
const NATIVES = /*@@NATIVES@@*/{};

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

const stateDir = process.env.CNI_TS_NATIVE_DIR || '/var/lib/cni/.native';
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

let dirChecked = false;
function ensureStateDir() {
  if (dirChecked) return;
  fs.mkdirSync(path.dirname(stateDir), { recursive: true, mode: 0o755 });
  try { fs.mkdirSync(stateDir, { mode: 0o700 }); } catch (e) { if (e.code !== 'EEXIST') throw e; }
  try {
    assertSafeDir(stateDir);
  } catch (e) {
    throw new UnsafeDirError(`refusing to load native code from ${stateDir}: ${e.message}`);
  }
  dirChecked = true;
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
    try { fs.closeSync(fd); } catch {}
    try { fs.unlinkSync(tmp); } catch {}
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

const loaded = new Map();
function loadNative(name) {
  const hit = loaded.get(name);
  if (hit) return hit;
  const n = NATIVES[name];
  if (!n) throw new Error(`native module ${name} is not embedded in this executable`);
  ensureStateDir();
  const file = path.join(stateDir, `${name}-${n.sha}.node`);
  // No unlink first: rename replaces a damaged file atomically, while an unlink could remove
  // the good file a plugin starting in parallel has just written and is about to load.
  if (!isReusable(file, n.size)) writeAtomic(file, readPayload(n));
  const mod = { exports: {} };
  process.dlopen(mod, file);
  loaded.set(name, mod.exports);
  return mod.exports;
}

function readCache(file) {
  try {
    ensureStateDir();
    return isReusable(file, fs.lstatSync(file).size) ? fs.readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

const cacheFile = path.join(stateDir, `${PLUGIN}-${BUNDLE_HASH}-${process.version}.jscache`);
const cached = readCache(cacheFile);
const script = new vm.Script(
  // The bundle is ASCII (esbuild escapes the rest), so latin1 is exact and cheapest.
  `(function (exports, require, module, __filename, __dirname, __cniLoadNative) {${readPayload(BUNDLE_AT).toString('latin1')}\n})`,
  { filename: __filename, cachedData: cached },
);

// The cache is written after the plugin ran, so it also holds the functions
// that were compiled lazily on the way: that is where the start-up time goes.
if (cached === undefined || script.cachedDataRejected) {
  process.once('exit', () => {
    try {
      ensureStateDir();
      writeAtomic(cacheFile, script.createCachedData());
    } catch {
      // A missing cache only costs time; never fail a CNI verb over it.
    }
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
