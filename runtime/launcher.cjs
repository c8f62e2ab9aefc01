'use strict';
// Launcher of a single-file plugin executable. scripts/build/build.ts fills in the
// /*@@...@@*/ slots and appends the payload: the plugin's bundled code and the
// native addons, base64 in one trailing comment, located by byte offsets.
//
// Why a launcher at all: a runtime waits on every ADD, and compiling the bundle
// is a large part of a plugin's start-up. V8 can reuse a code cache, but only
// for code compiled through vm.Script, so the bundle travels as data. Data in a
// comment costs Node's loader a fast skip; the same data as string literals
// cost ~4 ms of parsing and GC per start (measured).
const fs = require('node:fs');
const vm = require('node:vm');

const PLUGIN = /*@@PLUGIN@@*/ '';
// One id for every executable of a suite build: the code caches of this build carry it, and
// the native store sweeps caches that carry another.
const BUILD_ID = /*@@BUILD_ID@@*/ '';
// {offset, length} of the base64 bundle, and per native {sha, size, offset, length}.
const BUNDLE_AT = /*@@BUNDLE_AT@@*/ {};
const NATIVES = /*@@NATIVES@@*/ {};

// The sh line (START in scripts/build/build.ts) has Node run the file it opened on fd 9, as
// /proc/self/fd/9, with the path it was run as after it: the payload is read from that one
// file (another install may have renamed a new file over the path meanwhile), through an fd of
// our own (close-on-exec, unlike 9, which a plugin's children would inherit), and argv[1] is
// the path again, as the dispatcher expects (lib/cni-spec/dispatch.ts names the plugin by it).
const VIA_FD = __filename === '/proc/self/fd/9';
const selfFd = VIA_FD ? fs.openSync(__filename, 'r') : undefined;
if (VIA_FD) {
  fs.closeSync(9);
  process.argv.splice(1, 1);
}

function readPayload(at) {
  const fd = selfFd ?? fs.openSync(__filename, 'r');
  try {
    const b64 = Buffer.allocUnsafe(at.length);
    if (fs.readSync(fd, b64, 0, at.length, at.offset) !== at.length) throw new Error(`${process.argv[1]} is truncated`);
    return Buffer.from(b64.toString('latin1'), 'base64');
  } finally {
    if (fd !== selfFd) fs.closeSync(fd);
  }
}

// The directory rules for natives and the code cache: runtime/native-store.ts, bundled in by
// scripts/build/build.ts (the Bun binary uses the same module).
const { createNativeStore } = /*@@NATIVE_STORE@@*/ {};
const store = createNativeStore({ natives: NATIVES, payload: (name) => readPayload(NATIVES[name]), env: process.env, build: BUILD_ID });
const loadNative = store.loadNative;

// One cache per verb: the cache is written after the run and holds the functions compiled on
// the way, so VERSION does not load ADD's code from it, and every verb gets its own code cached
// (one cache for all would hold only what the first verb after an install compiled).
const VERBS = ['ADD', 'DEL', 'CHECK', 'GC', 'STATUS', 'VERSION'];
const verb = VERBS.includes(process.env.CNI_COMMAND) ? process.env.CNI_COMMAND : 'other';
const cacheName = `${PLUGIN}-${BUILD_ID}-${verb}-${process.version}.jscache`;
const cached = store.readCache(cacheName);
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
      store.writeCache(cacheName, script.createCachedData());
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
