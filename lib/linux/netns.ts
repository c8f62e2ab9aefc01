// A network namespace handle: an fd that pins the namespace, plus an rtnetlink
// socket that talks to it.
import { closeSync, constants as fsc, fstatSync, openSync, statfsSync } from 'node:fs';
import { errorText } from '../cni-spec/errors.ts';
import { timed } from '../cni-spec/timing.ts';
import { isNetnsFd, withNetns } from './addon.ts';
import { goErrText } from './go-errno.ts';
import { Rtnl } from './rtnl.ts';

export type NetnsErrorCode =
  | 'ENOENT' // the path does not exist: DEL treats this as done (reference: NSPathNotExistErr)
  | 'NOT_NETNS' // exists but is not a namespace file (reference: NSPathNotNSErr)
  | 'OPEN_FAILED' // open(2) failed otherwise (EACCES...)
  | 'ENTER_FAILED' // setns(2) or the socket inside failed
  | 'CLOSED'; // the handle was used after close()

export class NetnsError extends Error {
  override readonly name = 'NetnsError';
  readonly code: NetnsErrorCode;
  readonly path: string;

  constructor(code: NetnsErrorCode, path: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    this.path = path;
  }
}

// The main thread's own netns: only the thread running JS is ever switched.
const SELF_PATH = '/proc/thread-self/ns/net';

// O_NONBLOCK: a FIFO passed as the netns path must not hang the plugin in open().
// O_NOCTTY: nor may a tty become our controlling terminal. Node adds O_CLOEXEC.
const OPEN_FLAGS = fsc.O_RDONLY | fsc.O_NONBLOCK | fsc.O_NOCTTY;

// statfs(2) f_type of a namespace file: nsfs, or procfs before Linux 3.19 (linux/magic.h).
const NSFS_MAGIC = 0x6e736673;
const PROC_SUPER_MAGIC = 0x9fa0;

// How many Netns.run calls are on the stack. The host handle may skip setns
// only when nothing has switched this thread away from it.
let depth = 0;

export class Netns {
  readonly path: string;
  /** Keeps the namespace alive and identifies it for setns and IFLA_NET_NS_FD. */
  readonly fd: number;
  /**
   * rtnetlink socket bound to this namespace (a netlink socket talks to the
   * netns it was created in, whatever thread later uses it). Prefer the
   * helpers in this directory; wrap direct calls in nl() for typed errors.
   */
  readonly rtnl: Rtnl;
  readonly isHost: boolean;
  #closed = false;

  private constructor(path: string, fd: number, rtnl: Rtnl, isHost: boolean) {
    this.path = path;
    this.fd = fd;
    this.rtnl = rtnl;
    this.isHost = isHost;
  }

  /** The namespace this process runs in (the runtime's "host" side). */
  static host(): Netns {
    return timed('netlink', () => Netns.#openHost());
  }

  static #openHost(): Netns {
    const fd = openSync(SELF_PATH, OPEN_FLAGS);
    try {
      return new Netns(SELF_PATH, fd, Rtnl.open(), true);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Opens a namespace file such as CNI_NETNS (/var/run/netns/x, /proc/<pid>/ns/net). */
  static open(path: string): Netns {
    return timed('netlink', () => Netns.#open(path));
  }

  static #open(path: string): Netns {
    assertNsfsPath(path);
    let fd: number;
    try {
      fd = openSync(path, OPEN_FLAGS);
    } catch (err) {
      const code = (err as { code?: unknown }).code === 'ENOENT' ? 'ENOENT' : 'OPEN_FAILED';
      throw new NetnsError(code, path, `failed to open netns "${path}": open ${path}: ${goErrText(err)}`, err);
    }
    try {
      // The path may have been swapped since the statfs: the open file is what counts.
      if (!isNetnsFd(fd)) {
        throw new NetnsError('NOT_NETNS', path, `failed to open netns "${path}": unknown FS magic on "${path}"`);
      }
      let rtnl: Rtnl;
      try {
        rtnl = Rtnl.open(fd);
      } catch (err) {
        throw new NetnsError('ENTER_FAILED', path, `failed to open netns "${path}": ${errorText(err)}`, err);
      }
      return new Netns(path, fd, rtnl, false);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Namespace identity (nsfs inode): equal inodes are the same namespace. */
  get ino(): number {
    this.#checkOpen();
    return fstatSync(this.fd).ino;
  }

  /**
   * Runs fn synchronously with this thread inside the namespace: sync fs under
   * /proc/sys, sockets created here. Async work started inside (promises, async
   * fs, child processes' libuv threads) does NOT run inside, hence the
   * rejection of async callbacks.
   */
  run<T>(fn: () => T): T {
    this.#checkOpen();
    let result: T;
    if (this.isHost && depth === 0) {
      result = fn();
    } else {
      depth++;
      try {
        result = withNetns(this.fd, fn);
      } finally {
        depth--;
      }
    }
    if (result instanceof Promise) {
      // Its remaining steps already run outside; catch so it is not also unhandled.
      result.catch(() => {});
      throw new TypeError('Netns.run() needs a synchronous callback; it returned a Promise');
    }
    return result;
  }

  /** Closes the socket and the fd (no request is ever in flight: each one blocks until answered). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.rtnl.close();
    closeSync(this.fd);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #checkOpen(): void {
    if (this.#closed) throw new NetnsError('CLOSED', this.path, `netns "${this.path}" is closed`);
  }
}

/**
 * Refuses a path that is not on nsfs or procfs before anything opens it, as the reference's
 * ns.GetNS does: opening a device can have effects of its own (opening /dev/watchdog arms
 * the watchdog), and a FIFO or a tty is no business of ours either.
 */
export function assertNsfsPath(path: string): void {
  let type: number;
  try {
    type = statfsSync(path).type;
  } catch (err) {
    const code = (err as { code?: unknown }).code === 'ENOENT' ? 'ENOENT' : 'OPEN_FAILED';
    // The reference's wording (plugins/pkg/ns/ns_linux.go IsNSorErr, wrapped by each plugin).
    throw new NetnsError(code, path, `failed to open netns "${path}": failed to Statfs "${path}": ${goErrText(err)}`, err);
  }
  if (type !== NSFS_MAGIC && type !== PROC_SUPER_MAGIC) {
    throw new NetnsError('NOT_NETNS', path, `failed to open netns "${path}": unknown FS magic on "${path}": ${type.toString(16)}`);
  }
}
