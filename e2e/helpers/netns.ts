// Throwaway network namespaces for e2e tests. Each is removed in the test's
// teardown, so a failing assertion never leaves one behind.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Test } from 'tap';
import { run, tryRun } from './sh.ts';

export interface TestNetns {
  /** name under /run/netns, for `ip -n` */
  readonly name: string;
  /** the path a runtime passes in CNI_NETNS */
  readonly path: string;
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid}-${randomBytes(3).toString('hex')}`;
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
