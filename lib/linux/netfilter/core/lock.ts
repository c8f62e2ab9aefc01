// One lock around every read-modify-write of netfilter state. Plugin processes run in parallel
// (a runtime starts many pods at once); without it two ADDs could read the same nft chain and
// each delete a rule handle the other already deleted, or iptables-restore could be fed a
// plan made from a stale iptables-save.
import { closeSync, constants as fsc, fstatSync, lstatSync, openSync } from 'node:fs';
import { timed } from '../../../cni-spec/timing.ts';
import { flock, LOCK_EX, LOCK_UN } from '../../addon.ts';
import { mkdirAll } from '../../mkdir-all.ts';

export const LOCK_DIR = '/run/cni-ts';
export const LOCK_FILE = `${LOCK_DIR}/netfilter.lock`;

// Node opens every file close-on-exec, so nft and iptables children never inherit the lock.
// flock(2) locks belong to the open file, so a second open in this same process would wait
// for the first forever (and, being synchronous, freeze the event loop that must release it).
// Calls inside one process therefore queue here first.
let queue: Promise<unknown> = Promise.resolve();

function openLockFile(): number {
  mkdirAll(LOCK_DIR, 0o700);
  // Root takes this lock: the directory must not be one another user could swap or fill.
  const st = lstatSync(LOCK_DIR);
  const uid = process.getuid?.() ?? 0;
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o022) !== 0) {
    throw new Error(`refusing lock directory ${LOCK_DIR}: not a directory owned by uid ${uid} and writable only by it`);
  }
  const fd = openSync(LOCK_FILE, fsc.O_RDWR | fsc.O_CREAT | fsc.O_NOFOLLOW, 0o600);
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new Error(`refusing lock file ${LOCK_FILE}: not a regular file`);
  }
  return fd;
}

async function locked<T>(fn: () => Promise<T>): Promise<T> {
  const fd = openLockFile();
  try {
    flock(fd, LOCK_EX);
    return await fn();
  } finally {
    try {
      flock(fd, LOCK_UN);
    } finally {
      closeSync(fd);
    }
  }
}

/** Runs fn holding the netfilter lock (in-process queue first, then flock across processes). */
export function withNetfilterLock<T>(fn: () => Promise<T>): Promise<T> {
  // Waiting for the lock counts as netfilter time: it is what netfilter work costs here.
  const run = timed('netfilter', () => queue.then(() => locked(fn)));
  queue = run.catch(() => undefined);
  return run;
}
