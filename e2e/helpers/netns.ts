// Throwaway network namespaces for e2e tests. Each is removed in the test's
// teardown, so a failing assertion never leaves one behind.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Test } from 'tap';
import { run, tryRun } from '../../test-support/sh.ts';

export interface TestNetns {
  /** name under /run/netns, for `ip -n` */
  readonly name: string;
  /** the path a runtime passes in CNI_NETNS */
  readonly path: string;
}

let made = 0;

// The pid keeps the names of live test processes apart and the counter those of one process,
// by construction; the random part tells a new name from a leftover of a dead process that had
// the same pid. With only the pid and 24 random bits, a CI run failed once creating one of 50
// pods made at once ("Cannot create namespace file …: File exists").
export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid}-${++made}-${randomBytes(3).toString('hex')}`;
}

export async function makeNetns(t: Test, prefix = 'cnits'): Promise<TestNetns> {
  const name = uniqueName(prefix);
  await run('ip', ['netns', 'add', name]);
  t.teardown(() => removeNetns(name));
  return { name, path: `/run/netns/${name}` };
}

export async function removeNetns(name: string): Promise<void> {
  if (existsSync(`/run/netns/${name}`)) await tryRun('ip', ['netns', 'del', name]);
}
