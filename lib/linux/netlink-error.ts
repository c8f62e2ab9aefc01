// One error class for every netlink failure, with errno/code so callers branch on a code,
// never on message text. Our transport (nl-socket.ts) throws it directly for kernel errors;
// its socket calls throw Node-shaped errors (errno, code, syscall) from the addon.
//
// netlink@0.3.0's socket, which we no longer use, threw untyped errors; the mapping below still
// understands them (see node_modules/netlink/dist/netlink.js and src/binding.cc):
// - kernel NLMSG_ERROR: plain Error("Request rejected: EEXIST"), the name
//   from util.getSystemErrorName(-errno) ("ENOTSUP" for 95), or
//   "Request rejected: Unknown system error -524" for kernel-internal errnos;
// - socket failures: an Error named 'ErrnoException' with positive errno,
//   code and syscall (e.g. sendmsg ENOBUFS);
// - plain Error("Netlink socket is closed"), Error("Timeout has been reached"),
//   Error("Multipart message not terminated properly").
import { timed } from '../cni-spec/timing.ts';
import { describeErrno, errnoByName } from './go-errno.ts';

export class NetlinkError extends Error {
  override readonly name = 'NetlinkError';
  /** Positive errno; 0 when the failure was not the kernel's (closed socket, timeout). */
  readonly errno: number;
  /** 'EEXIST', 'ENODEV'...; 'EUNKNOWN' when there is no errno. */
  readonly code: string;
  /** The request that failed, e.g. 'RTM_NEWLINK' ('' until nl() names it). Not in the message, which stays reference-like. */
  readonly op: string;

  constructor({ op, errno, code }: { op: string; errno: number; code: string }, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.op = op;
    this.errno = errno;
    this.code = code;
  }

  static fromErrno(op: string, errno: number, cause?: unknown): NetlinkError {
    const { code, text } = describeErrno(errno);
    return new NetlinkError({ op, errno, code }, text, cause);
  }
}

const REJECTED = /^Request rejected: (?:(E[A-Z0-9]+)|Unknown system error (-?\d+)|(-?\d+))$/;

/** Maps whatever a netlink request threw to a NetlinkError of `op` (a mapped one keeps its op). */
export function toNetlinkError(op: string, err: unknown): NetlinkError {
  // Our transport does not know the request's name: its errors get the op they failed in.
  if (err instanceof NetlinkError) return err.op === '' ? new NetlinkError({ op, errno: err.errno, code: err.code }, err.message, err.cause) : err;
  const e = err as { message?: unknown; errno?: unknown } | null | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const m = REJECTED.exec(message);
  if (m) {
    const errno = m[1] !== undefined ? errnoByName(m[1]) : Math.abs(Number(m[2] ?? m[3]));
    if (errno !== undefined && errno > 0) return NetlinkError.fromErrno(op, errno, err);
  }
  // ErrnoException from the binding: errno is already positive.
  if (typeof e?.errno === 'number' && e.errno > 0) return NetlinkError.fromErrno(op, e.errno, err);
  return new NetlinkError({ op, errno: 0, code: 'EUNKNOWN' }, message, err);
}

/**
 * Makes a netlink request, rethrowing its failure as a NetlinkError tagged with op. A thunk,
 * so the whole request is inside the timed phase: our transport blocks until the kernel has
 * answered, and the kernel does the work (a link's removal waits for a grace period) meanwhile.
 */
export function nl<T>(op: string, request: () => T | Promise<T>): Promise<T> {
  return timed('netlink', () => {
    let p: T | Promise<T>;
    try {
      p = request();
    } catch (err) {
      return Promise.reject(toNetlinkError(op, err));
    }
    return Promise.resolve(p).catch((err: unknown) => Promise.reject(toNetlinkError(op, err)));
  });
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
