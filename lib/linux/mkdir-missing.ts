// Go's os.MkdirAll, without the spin: Node's mkdirSync({ recursive: true }) loops forever when
// mkdir(2) answers ENOENT for a path whose parent exists (any path under /proc does), which
// hung host-local, and bridge's ADD through it, at 100 % CPU.
//
// Its errors are Node's own (code, syscall, path), and it imports nothing of ours: the native
// store (runtime/native-store.ts) is bundled on its own into every executable's launcher and
// runs before the plugin, so it takes this module alone and keeps Node's wording beside its
// other reasons; mkdir-all.ts gives the plugins Go's wording.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

const errnoOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException | undefined)?.code;

function isDir(path: string): boolean | undefined {
  try {
    return statSync(path).isDirectory();
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Creates `dir` and any missing parent with `mode`, one mkdir(2) per missing component, top
 * down, so each component is tried exactly once. An existing directory is success; anything
 * else fails at once with the failing call's error (a component that is no directory:
 * ENOTDIR, syscall mkdir, naming it).
 */
export function mkdirMissing(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    const found = isDir(d);
    if (found === true) break;
    if (found === false) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${d}'`), { code: 'ENOTDIR', errno: -20, syscall: 'mkdir', path: d });
    missing.push(d);
    if (d === dirname(d)) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (err) {
      // A parallel plugin may have made it in between: fine if it is a directory now.
      if (errnoOf(err) === 'EEXIST' && isDir(d) === true) continue;
      throw err;
    }
  }
}
