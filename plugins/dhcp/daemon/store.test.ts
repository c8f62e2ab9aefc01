import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { LeaseStore, type LeaseRecord } from './store.ts';

const record = (clientId: string): LeaseRecord => ({
  v: 1,
  clientId,
  containerId: clientId.split('/')[0] as string,
  network: 'lan',
  ifname: 'eth0',
  netns: '/run/netns/p',
  mac: '02:00:00:aa:bb:cc',
  options: [[55, '0301']],
  priority: 0,
  ack: 'AA==',
  renewAt: 1,
  rebindAt: 2,
  expireAt: 3,
});

t.test('leases saved one file each, root-only, loaded back, removed; DEL of none is fine', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'cnits-dhcp-store-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const s = new LeaseStore(join(root, 'state', 'dhcp'));
  s.init();
  t.equal(statSync(s.dir).mode & 0o777, 0o700, 'the directory is 0700');
  s.save(record('c1/lan/eth0'));
  s.save(record('../../etc/passwd/lan/eth0'));
  const files = readdirSync(s.dir);
  t.equal(files.length, 2);
  t.ok(
    files.every((f) => /^[0-9a-f]{40}\.lease\.json$/.test(f)),
    'names are hashes, whatever the container ID holds',
  );
  t.ok(
    files.every((f) => (statSync(join(s.dir, f)).mode & 0o777) === 0o600),
    'each file is 0600',
  );
  t.same(
    s
      .load(() => t.fail('nothing unreadable'))
      .map((r) => r.clientId)
      .sort(),
    ['../../etc/passwd/lan/eth0', 'c1/lan/eth0'],
  );
  s.save({ ...record('c1/lan/eth0'), expireAt: 99 });
  t.equal(s.load(() => undefined).find((r) => r.clientId === 'c1/lan/eth0')?.expireAt, 99, 'a save replaces');
  s.remove('c1/lan/eth0');
  s.remove('c1/lan/eth0');
  t.equal(readdirSync(s.dir).length, 1, 'removed, and removing again is fine');
});

t.test('a write a crash cut short is dropped; a file that is not ours is reported and left', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cnits-dhcp-store-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const s = new LeaseStore(dir);
  writeFileSync(join(dir, 'abc.lease.json.tmp-123'), '{"v":1,');
  writeFileSync(join(dir, 'abc.lease.json'), '{"v":1,"clientId":"x"}');
  const reported: string[] = [];
  t.same(
    s.load((f) => reported.push(f)),
    [],
  );
  t.same(reported, [join(dir, 'abc.lease.json')], 'a record under a name that is not its hash');
  t.same(readdirSync(dir), ['abc.lease.json'], 'the half-written file is gone');
});
