// Entry of the SEA multicall binary (scripts/build-sea.ts): one executable that carries Node,
// every plugin and a V8 start-up snapshot, installed under each plugin's name (hard links or
// symlinks). It runs the program named by the basename it was invoked as (argv[0]; else the
// executable's own file name, which for a hard link is the link's), and for any other name
// prints the list of programs and exits 1.
//
// While the snapshot is built (`useSnapshot`), this script runs the warm-up and registers
// `main` to run after deserialisation. Everything that belongs to one run is made in `main`:
// the environment, the native store and its directories, the node:sea handle, sockets and
// file descriptors (none exist before it).
import { startupSnapshot } from 'node:v8';
import type * as Sea from 'node:sea';
import { loadBuiltin } from '../lib/cni-spec/builtin.ts';
import { createNativeStore, type NativeInfo } from './native-store.ts';
import { failEarly, invokedAs, refuseName, writeOut } from './multicall.ts';
import { setNativeLoader } from './sea-natives.ts';
import { PROGRAMS } from './sea-programs.ts';

// The natives' names, sizes and hashes, put in by scripts/build-sea.ts (esbuild `define`).
declare const CNI_SEA_NATIVES: Readonly<Record<string, NativeInfo>>;

async function main(): Promise<void> {
  const who = invokedAs();
  if ('unknown' in who) return refuseName(who.unknown);
  try {
    const sea = loadBuiltin<typeof Sea>('node:sea');
    const store = createNativeStore({ natives: CNI_SEA_NATIVES, payload: (n) => new Uint8Array(sea.getAsset(n)), env: process.env });
    setNativeLoader((n) => store.loadNative(n));
    await PROGRAMS[who.name]();
  } catch (err) {
    failEarly(err);
  }
}

// The snapshot builder runs with --no-warnings (scripts/build-sea.ts): printing one would
// create process.stderr, a stream on the builder's fd 2, and put it in the snapshot. A warning
// still fails the build (a built-in module Node does not vouch for in a snapshot would be in
// every plugin start); it is reported through a plain write.
function buildSnapshot(): void {
  const warnings: string[] = [];
  // Node's own notice that SEA is experimental is not about the snapshot.
  const onWarning = (w: Error) => {
    if (!w.message.startsWith('Single executable application is an experimental feature')) warnings.push(`${w.name}: ${w.message}`);
  };
  process.on('warning', onWarning);
  const fail = (why: string) => {
    writeOut(2, `cni-ts: ${why}\n`);
    process.exit(1);
  };
  startupSnapshot.setDeserializeMainFunction(() => void main());
  // The builder runs the event loop until it is empty before it takes the snapshot.
  import('./sea-warm-up.ts')
    .then((w) => w.warmUp())
    // emitWarning reports on the next tick
    .then(() => new Promise((resolve) => setImmediate(resolve)))
    .then(() => {
      process.off('warning', onWarning);
      if (warnings.length > 0) fail(`the snapshot builder warned:\n${warnings.join('\n')}`);
    })
    // A warm-up that fails would leave half-initialised state in the snapshot: no binary.
    .catch((err: unknown) => fail(`snapshot warm-up failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));
}

if (startupSnapshot.isBuildingSnapshot()) {
  buildSnapshot();
} else {
  void main();
}
