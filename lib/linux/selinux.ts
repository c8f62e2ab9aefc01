// The reference tap plugin's selinux.SetExecLabel (go-selinux v1.13.0, writeConThreadSelf):
// the label goes to /proc/thread-self/attr/exec, for the next program this thread execs. On a
// kernel without SELinux no security module takes the write, which fails with EINVAL: that
// failure is what a `selinuxContext` meets on such a host, with the reference and with us.
import { writeFileSync } from 'node:fs';
import { goFsError } from './go-errno.ts';

const EXEC_ATTR = '/proc/thread-self/attr/exec';

export class SelinuxError extends Error {
  override readonly name = 'SelinuxError';
}

export function setExecLabel(label: string): void {
  try {
    writeFileSync(EXEC_ATTR, label);
  } catch (err) {
    throw new SelinuxError(goFsError(err, 'write', EXEC_ATTR).message, { cause: err });
  }
}

/** Undoes setExecLabel (an empty write resets the thread's exec label); best effort. */
export function clearExecLabel(): void {
  try {
    writeFileSync(EXEC_ATTR, '');
  } catch {
    // Nothing was set, or nothing can be: either way no later exec of ours carries the label.
  }
}
