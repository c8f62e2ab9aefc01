// netlink@0.3.0 rejects with untyped errors; this turns them into one class
// with errno/code so callers branch on a code, never on message text.
//
// What it throws (see node_modules/netlink/dist/netlink.js and src/binding.cc):
// - kernel NLMSG_ERROR: plain Error("Request rejected: EEXIST"), the name
//   from util.getSystemErrorName(-errno) ("ENOTSUP" for 95), or
//   "Request rejected: Unknown system error -524" for kernel-internal errnos;
// - socket failures: an Error named 'ErrnoException' with positive errno,
//   code and syscall (e.g. sendmsg ENOBUFS);
// - plain Error("Netlink socket is closed"), Error("Timeout has been reached"),
//   Error("Multipart message not terminated properly").
import { constants } from 'node:os';

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

const errnoByName = constants.errno as Readonly<Record<string, number>>;

export class NetlinkError extends Error {
  override readonly name = 'NetlinkError';
  /** Positive errno; 0 when the failure was not the kernel's (closed socket, timeout). */
  readonly errno: number;
  /** 'EEXIST', 'ENODEV'...; 'EUNKNOWN' when there is no errno. */
  readonly code: string;
  /** The request that failed, e.g. 'RTM_NEWLINK'. Not in the message, which stays reference-like. */
  readonly op: string;

  constructor(op: string, errno: number, code: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.op = op;
    this.errno = errno;
    this.code = code;
  }

  static fromErrno(op: string, errno: number, cause?: unknown): NetlinkError {
    const known = ERRNOS.get(errno);
    if (known) return new NetlinkError(op, errno, known[0], known[1], cause);
    const name = Object.keys(errnoByName).find((k) => errnoByName[k] === errno);
    return new NetlinkError(op, errno, name ?? 'EUNKNOWN', `errno ${errno}`, cause);
  }
}

const REJECTED = /^Request rejected: (?:(E[A-Z0-9]+)|Unknown system error (-?\d+)|(-?\d+))$/;

/** Maps whatever netlink threw (or an error already mapped) to a NetlinkError. */
export function toNetlinkError(op: string, err: unknown): NetlinkError {
  if (err instanceof NetlinkError) return err;
  const e = err as { message?: unknown; errno?: unknown } | null | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const m = REJECTED.exec(message);
  if (m) {
    const errno = m[1] !== undefined ? errnoByName[m[1]] : Math.abs(Number(m[2] ?? m[3]));
    if (errno !== undefined && errno > 0) return NetlinkError.fromErrno(op, errno, err);
  }
  // ErrnoException from the binding: errno is already positive.
  if (typeof e?.errno === 'number' && e.errno > 0) return NetlinkError.fromErrno(op, e.errno, err);
  return new NetlinkError(op, 0, 'EUNKNOWN', message, err);
}

/** Awaits a netlink request, rethrowing its failure as a NetlinkError tagged with op. */
export async function nl<T>(op: string, request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (err) {
    throw toNetlinkError(op, err);
  }
}

function codeOf(err: unknown): unknown {
  return typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
}

/**
 * The "already gone" answers DEL treats as done: ENODEV (link), ENOENT (qdisc,
 * rule, also a missing netns path or sysctl file), ESRCH (route),
 * EADDRNOTAVAIL (address). Works on any error with a `code`.
 */
export function isNotFound(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ENODEV' || code === 'ENOENT' || code === 'ESRCH' || code === 'EADDRNOTAVAIL';
}

export function isExists(err: unknown): boolean {
  return codeOf(err) === 'EEXIST';
}

/** True for a NetlinkError with one of the codes (any code when none given). */
export function isNetlinkError(err: unknown, ...codes: string[]): err is NetlinkError {
  return err instanceof NetlinkError && (codes.length === 0 || codes.includes(err.code));
}
