// Go's os.MkdirAll, without the spin: Node's mkdirSync({ recursive: true }) loops forever when
// mkdir(2) answers ENOENT for a path whose parent exists (any path under /proc does), which
// hung host-local, and bridge's ADD through it, at 100 % CPU.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { goFsError } from './go-errno.ts';

function isDir(path: string): boolean | undefined {
  try {
    return statSync(path).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw goFsError(err, 'stat', path);
  }
}

/**
 * Creates `dir` and any missing parent with `mode`, one mkdir(2) per missing component, top
 * down, so each component is tried exactly once. An existing directory is success; anything
 * else fails at once with Go's text ("mkdir /proc/x: no such file or directory").
 */
export function mkdirAll(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    const found = isDir(d);
    if (found === true) break;
    if (found === false) throw goFsError(Object.assign(new Error('not a directory'), { code: 'ENOTDIR' }), 'mkdir', d);
    missing.push(d);
    if (d === dirname(d)) break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (err) {
      // A parallel plugin may have made it in between: fine if it is a directory now.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && isDir(d) === true) continue;
      throw goFsError(err, 'mkdir', d);
    }
  }
}
