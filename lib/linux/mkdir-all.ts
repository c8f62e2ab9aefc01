// mkdirMissing (mkdir-missing.ts) with its errors in Go's words, as the reference's os.MkdirAll
// prints them ("mkdir /proc/x: no such file or directory").
import { goFsError } from './go-errno.ts';
import { mkdirMissing } from './mkdir-missing.ts';

/** Creates `dir` and any missing parent with `mode`: see mkdirMissing. */
export function mkdirAll(dir: string, mode: number): void {
  try {
    mkdirMissing(dir, mode);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw goFsError(err, e.syscall ?? 'mkdir', e.path ?? dir);
  }
}
