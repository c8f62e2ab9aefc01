// CNI_NETNS checked by its path alone (assertContainerNetnsPath, for the dhcp plugin, whose daemon
// enters the netns): the codes a runtime acts on. statfs needs no privilege.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CniError } from '../cni-spec/errors.ts';
import type { Result } from '../cni-spec/result.ts';
import { assertContainerNetnsPath } from './container-netns.ts';

const dir = mkdtempSync(join(tmpdir(), 'cni-netns-path-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const codeOf = (netns: string, prevResult?: Result): number | undefined => {
  try {
    assertContainerNetnsPath(prevResult === undefined ? { netns } : { netns, prevResult });
    return undefined;
  } catch (err) {
    return err instanceof CniError ? err.code : -1;
  }
};

t.test('a netns file passes', async (t) => {
  t.equal(codeOf('/proc/self/ns/net'), undefined);
});

t.test('a path that does not exist: 3 when nothing was made, 999 after a plugin before this one', async (t) => {
  t.equal(codeOf(join(dir, 'gone')), 3);
  t.equal(codeOf(join(dir, 'gone'), { cniVersion: '1.0.0' }), 999);
});

t.test('a file, a directory or a device that is no netns: 4, naming the path', async (t) => {
  for (const p of [dir, '/dev/null', '/etc/hostname']) {
    t.equal(codeOf(p), 4, p);
  }
  let caught: unknown;
  try {
    assertContainerNetnsPath({ netns: '/dev/null' });
  } catch (err) {
    caught = err;
  }
  t.match(caught, { msg: /failed to open netns "\/dev\/null"/, details: '/dev/null is not a network namespace' });
});
