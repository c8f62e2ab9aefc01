// host-local's on-disk state, byte for byte the reference's
// (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/host-local/backend/disk/backend.go), so the Go plugin and this one can share a dataDir in either direction:
//   <dataDir>/<network>/<ip>                 "<containerID>\r\n<ifname>", mode 0600, O_EXCL
//   <dataDir>/<network>/last_reserved_ip.<i> the last address reserved from range set i
//   <dataDir>/<network>/lock                 flock(LOCK_EX) around every change
// Old versions wrote only "<containerID>"; such files are still found and released.
//
// A symbolic link planted in the directory never redirects a write: the lock is opened with
// O_NOFOLLOW, the round-robin marker is replaced by rename, reservations are created with O_EXCL
// (the reference follows links for both: divergences.md H4).
//
// Every method is synchronous, and callers hold the lock only across synchronous code: a
// flock is per open file, so a second in-process lock attempt while an await is pending
// would block the event loop forever.
import { closeSync, constants, fstatSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { flock, LOCK_EX } from '../linux/addon.ts';
import { goFsError, isErrno } from '../linux/go-errno.ts';
import { mkdirAll } from '../linux/mkdir-all.ts';
import { formatAddr, parseAddr, type Addr } from './addr.ts';

const LAST_IP_PREFIX = 'last_reserved_ip.';
const LINE_BREAK = '\r\n';
const FILE_MODE = 0o600;
// Never wait on a FIFO nor follow a link planted where one of our files belongs.
const NO_SURPRISES = constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** One reserved address: the file named after it and its trimmed content. */
export interface Allocation {
  readonly name: string;
  readonly ip: Addr;
  readonly key: string;
}

/** What an allocation file holds for an attachment (the container id is trimmed, as written). */
export const ownerKey = (containerId: string, ifname: string): string => `${containerId.trim()}${LINE_BREAK}${ifname}`;
/** What files of old versions hold. */
export const legacyKey = (containerId: string): string => containerId.trim();

/** The attachment an allocation names; no ifname for an old-format file. */
export function parseOwner(key: string): { containerId: string; ifname?: string } {
  const at = key.indexOf(LINE_BREAK);
  return at < 0 ? { containerId: key } : { containerId: key.slice(0, at), ifname: key.slice(at + LINE_BREAK.length) };
}

export class Store {
  private constructor(
    readonly dir: string,
    private readonly lockFd: number,
  ) {}

  /** Creates the network's directory (0755) if needed and holds its lock until close(). */
  static open(dir: string): Store {
    mkdirAll(dir, 0o755);
    return Store.lockDir(dir);
  }

  /** Like open(), but undefined when the directory does not exist: nothing was ever allocated. */
  static openIfExists(dir: string): Store | undefined {
    try {
      return Store.lockDir(dir);
    } catch (err) {
      if (isErrno(err, 'ENOENT') || isErrno((err as Error).cause, 'ENOENT')) return undefined;
      throw err;
    }
  }

  private static lockDir(dir: string): Store {
    const path = join(dir, 'lock');
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDONLY | constants.O_CREAT | NO_SURPRISES, FILE_MODE);
    } catch (err) {
      if (isErrno(err, 'ELOOP')) throw new Error(`refusing lock file ${path}: it is a symbolic link`, { cause: err });
      throw goFsError(err, 'open', path);
    }
    if (!fstatSync(fd).isFile()) {
      closeSync(fd);
      throw new Error(`refusing lock file ${path}: not a regular file`);
    }
    try {
      flock(fd, LOCK_EX);
    } catch (err) {
      closeSync(fd);
      throw new Error(`failed to lock ${path}: ${(err as Error).message}`, { cause: err });
    }
    return new Store(dir, fd);
  }

  /** Releases the lock. */
  close(): void {
    closeSync(this.lockFd);
  }

  /**
   * Claims `ip` for the attachment; false when another file already claims it. The round-robin
   * marker is written separately (recordLastReserved), once the whole ADD has succeeded: a
   * failed ADD must leave every file as it found it.
   */
  reserve(containerId: string, ifname: string, ip: Addr): boolean {
    const path = join(this.dir, formatAddr(ip));
    let fd: number;
    try {
      fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, FILE_MODE);
    } catch (err) {
      if (isErrno(err, 'EEXIST')) return false;
      throw goFsError(err, 'open', path);
    }
    try {
      writeSync(fd, ownerKey(containerId, ifname));
      // On disk before the lock is released: after a power loss an address file is whole, not
      // empty. We release an empty one (H3), the reference sharing the directory never does.
      // The directory is not synced (one more journal commit per ADD and DEL, 3x the store's
      // time measured here): an entry lost with the host belongs to a container that died too.
      fsyncSync(fd);
    } catch (err) {
      closeSync(fd);
      unlinkSync(path);
      throw goFsError(err, 'write', path);
    }
    closeSync(fd);
    return true;
  }

  /**
   * Records `ip` as the set's last reserved address, where the next round-robin search starts.
   * A fresh file renamed over the old one: whatever is at that name (a link, say) is replaced,
   * never written through. It is not synced: a marker lost in a crash only restarts the search.
   */
  recordLastReserved(setIndex: number, ip: Addr): void {
    const last = join(this.dir, `${LAST_IP_PREFIX}${setIndex}`);
    const tmp = `${last}.tmp`;
    try {
      // Left by a writer that died before its rename; we hold the lock, so no one else's.
      unlinkIfPresent(tmp);
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_SURPRISES, FILE_MODE);
      try {
        writeSync(fd, formatAddr(ip));
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, last);
    } catch (err) {
      unlinkIfPresent(tmp);
      throw goFsError(err, 'open', last);
    }
  }

  /** The set's last reserved address; undefined if none or unreadable (round-robin just restarts). */
  lastReserved(setIndex: number): Addr | undefined {
    const path = join(this.dir, `${LAST_IP_PREFIX}${setIndex}`);
    try {
      return parseAddr(readOwnFile(path));
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) process.stderr.write(`Error retrieving last reserved ip: ${goFsError(err, 'open', path).message}\n`);
      return undefined;
    }
  }

  /**
   * Every file named after an address, with its owner. Unreadable files are skipped. An empty
   * one is removed: reserve() creates and writes a file under this lock, and so does the
   * reference, so an empty file seen while holding the lock is from an ADD killed between the
   * two (the reference would leak its address forever; divergences.md H3).
   */
  allocations(): Allocation[] {
    let names: string[];
    try {
      names = readdirSync(this.dir, { withFileTypes: true })
        .filter((d) => d.isFile())
        .map((d) => d.name);
    } catch (err) {
      throw goFsError(err, 'open', this.dir);
    }
    const out: Allocation[] = [];
    for (const name of names) {
      const ip = parseAddr(name);
      if (ip === undefined) continue;
      const path = join(this.dir, name);
      let content: string;
      try {
        content = readOwnFile(path);
      } catch {
        continue; // gone or unreadable: not ours to judge
      }
      if (content === '') this.releaseAbandoned(path);
      else out.push({ name, ip, key: content.trim() });
    }
    return out;
  }

  private releaseAbandoned(path: string): void {
    try {
      unlinkSync(path);
    } catch {
      // left for the next one to try; the address stays taken meanwhile, as with the reference
    }
  }

  /** Removes the files; a file already gone counts as released. Returns the failures. */
  release(allocations: readonly Allocation[]): Error[] {
    const errors: Error[] = [];
    for (const a of allocations) {
      const path = join(this.dir, a.name);
      try {
        unlinkSync(path);
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) errors.push(goFsError(err, 'remove', path));
      }
    }
    return errors;
  }
}

/** A regular file's content, read without following a link (ELOOP) or waiting on a FIFO. */
function readOwnFile(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | NO_SURPRISES);
  try {
    if (!fstatSync(fd).isFile()) throw Object.assign(new Error(`${path}: not a regular file`), { code: 'EINVAL' });
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if (!isErrno(err, 'ENOENT')) throw err;
  }
}

/** Runs fn with the network's store locked; fn must be synchronous (see the header). */
export function withStore<T>(dir: string, fn: (store: Store) => T): T {
  const store = Store.open(dir);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}
