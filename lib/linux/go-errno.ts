// System errors in Go's words. The reference plugins' messages end with a syscall.Errno or an
// os.PathError as Go prints them ("file exists", "open /x: no such file or directory"), so ours
// do too.
import type * as Os from 'node:os';
import { loadBuiltin } from '../cni-spec/builtin.ts';
import { errorText } from '../cni-spec/errors.ts';

/**
 * Texts as Go prints a syscall.Errno, because the reference plugins' messages
 * end with it: `failed to create bridge "cni0": file exists`. The code is the
 * kernel's name for the errno (EOPNOTSUPP, not libuv's ENOTSUP).
 */
const ERRNOS: ReadonlyMap<number, readonly [code: string, text: string]> = new Map([
  [1, ['EPERM', 'operation not permitted']],
  [2, ['ENOENT', 'no such file or directory']],
  [3, ['ESRCH', 'no such process']],
  [5, ['EIO', 'input/output error']],
  [7, ['E2BIG', 'argument list too long']],
  [11, ['EAGAIN', 'resource temporarily unavailable']],
  [12, ['ENOMEM', 'cannot allocate memory']],
  [13, ['EACCES', 'permission denied']],
  [16, ['EBUSY', 'device or resource busy']],
  [17, ['EEXIST', 'file exists']],
  [19, ['ENODEV', 'no such device']],
  [22, ['EINVAL', 'invalid argument']],
  [28, ['ENOSPC', 'no space left on device']],
  [34, ['ERANGE', 'numerical result out of range']],
  [39, ['ENOTEMPTY', 'directory not empty']],
  [61, ['ENODATA', 'no data available']],
  [71, ['EPROTO', 'protocol error']],
  [90, ['EMSGSIZE', 'message too long']],
  [93, ['EPROTONOSUPPORT', 'protocol not supported']],
  [95, ['EOPNOTSUPP', 'operation not supported']],
  [97, ['EAFNOSUPPORT', 'address family not supported by protocol']],
  [98, ['EADDRINUSE', 'address already in use']],
  [99, ['EADDRNOTAVAIL', 'cannot assign requested address']],
  [101, ['ENETUNREACH', 'network is unreachable']],
  [105, ['ENOBUFS', 'no buffer space available']],
  [113, ['EHOSTUNREACH', 'no route to host']],
  // Kernel-internal, but tc and some drivers leak it to userspace.
  [524, ['ENOTSUPP', 'operation not supported']],
]);
/**
 * Every errno name the platform knows, by name. node:os is loaded on the first call only: under
 * Bun loading it costs ~6 ms, and most runs never need a name outside ERRNOS.
 */
export function errnoByName(name: string): number | undefined {
  return (loadBuiltin<typeof Os>('node:os').constants.errno as Readonly<Record<string, number>>)[name];
}

/** The kernel's name and Go's text for a positive errno ("errno N" when the table lacks it). */
export function describeErrno(errno: number): { code: string; text: string } {
  const known = ERRNOS.get(errno);
  if (known) return { code: known[0], text: known[1] };
  const all = loadBuiltin<typeof Os>('node:os').constants.errno as Readonly<Record<string, number>>;
  const name = Object.keys(all).find((k) => all[k] === errno);
  return { code: name ?? 'EUNKNOWN', text: `errno ${errno}` };
}

/**
 * Lower-case errno text of a Node file-system error, for reference-like messages. Codes other
 * than these three keep libuv's wording, which is Go's for most but not all (EEXIST is
 * "file already exists" there, "file exists" in Go).
 */
export function goErrText(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'ENOTDIR') return 'not a directory';
  const msg = errorText(err);
  // Node: "EACCES: permission denied, open '/x'" -> "permission denied"
  return /^E[A-Z0-9]+: ([^,]+)/.exec(msg)?.[1] ?? msg;
}

/** An os.PathError as Go prints it ("open /x: no such file or directory"), Node's error as the cause. */
export function goFsError(err: unknown, op: string, path: string): Error {
  return new Error(`${op} ${path}: ${goErrText(err)}`, { cause: err });
}

export const isErrno = (err: unknown, code: string): boolean => (err as NodeJS.ErrnoException | undefined)?.code === code;
