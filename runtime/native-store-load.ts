// dlopen through a file descriptor, for the native store (runtime/native-store.ts).
//
// Every native is loaded as /proc/self/fd/<fd> of a file the store opened and checked (or
// wrote) itself: what is loaded is what was checked, whatever happens to the name meanwhile
// (a sweep by another build may unlink it; a deleted file stays mapped). glibc knows a loaded
// library by the path it was opened with, so each fd stays open for the life of the process:
// a closed fd's number would be reused by the next native, and dlopen of the same
// /proc/self/fd/N would hand back the first library instead of loading the second. The fds
// are close-on-exec (Node opens every file so), so no child inherits them.
import { closeSync, constants, openSync } from 'node:fs';
import { errorText, writeAll } from './native-store-fs.ts';

export interface LoadedModule {
  exports: unknown;
}

/** dlopen of the file open on `fd`; on success the fd is kept open for good, else closed. */
export function dlopenFd(mod: LoadedModule, fd: number, what: string): void {
  try {
    process.dlopen(mod, `/proc/self/fd/${fd}`);
  } catch (e) {
    closeSync(fd);
    // dlopen names the /proc path; say which file it was.
    throw new Error(
      `${what}: ${errorText(e)
        .split('\n')[0]
        ?.replace(/^\/proc\/self\/fd\/\d+: /, '')}`,
      { cause: e },
    );
  }
}

// With no directory we may write, a native still loads from an unnamed file (O_TMPFILE): no
// other user can open, link or replace an inode that has no name and whose only handle is our
// fd. A noexec mount refuses the mapping, so each candidate file system is tried in turn.
const O_TMPFILE = 0o20000000 | constants.O_DIRECTORY;
export function dlopenAnonymous(mod: LoadedModule, bytes: Uint8Array, reasons: string[]): boolean {
  for (const dir of ['/run', '/dev/shm', '/tmp']) {
    let fd: number;
    try {
      fd = openSync(dir, O_TMPFILE | constants.O_RDWR, 0o700);
    } catch (e) {
      reasons.push(`unnamed file in ${dir}: ${errorText(e)}`);
      continue;
    }
    try {
      writeAll(fd, bytes);
    } catch (e) {
      closeSync(fd);
      reasons.push(`unnamed file in ${dir}: ${errorText(e)}`);
      continue;
    }
    try {
      dlopenFd(mod, fd, `unnamed file in ${dir}`);
      return true;
    } catch (e) {
      reasons.push(errorText(e));
    }
  }
  return false;
}
