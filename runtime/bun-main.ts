// Entry of the Bun multicall binary (scripts/build/build-bun.ts): Bun's runtime, every program's
// code as bytecode, and our addon, in one executable installed under each program's name (hard
// links or symlinks). It runs the program named by the basename it was invoked as (as a
// busybox does), and for any other name prints the list of programs and exits 1.
// A program's modules are evaluated only when it runs (plugins/registry.ts holds lazy imports).
import { failEarly, invokedAs, refuseName } from './multicall.ts';
import { runProgram } from './programs.ts';

async function main(): Promise<void> {
  const who = invokedAs();
  if ('unknown' in who) return refuseName(who.unknown);
  try {
    // Bun puts its virtual path of the bundled script (/$bunfs/root/cni-ts) in argv[1]; the
    // dispatcher (lib/cni-spec/dispatch.ts) takes argv[1] === the executable to mean "named by argv[0]".
    process.argv[1] = process.execPath;
    await runProgram(who.name);
  } catch (err) {
    failEarly(err);
  }
}

void main();
