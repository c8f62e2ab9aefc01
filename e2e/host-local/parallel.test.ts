// 50 host-local processes at once on one network: the flock on <dir>/lock serialises them,
// so every ADD gets its own address and the DELs leave nothing behind.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { makeNetns } from '../helpers/netns.ts';
import { execPlugin, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';

const N = 50;

t.test(`${N} parallel ADDs get ${N} distinct addresses; ${N} parallel DELs release them all`, { skip: needsRoot }, async (t) => {
  const ns = await makeNetns(t, 'hlp');
  const dataDir = tempDir(t);
  const dir = join(dataDir, 'par-net');
  // Dual-stack: each ADD takes the lock for two reservations.
  const conf = {
    cniVersion: '1.1.0',
    name: 'par-net',
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.15.0.0/24' }], [{ subnet: 'fd00:15::/64' }]] },
  };
  const ids = Array.from({ length: N }, (_, i) => `par-${i}`);
  const env = (id: string) => ({ containerId: id, netns: ns.path, ifname: 'eth0' });

  const adds = await Promise.all(ids.map((id) => execPlugin('host-local', { command: 'ADD', ...env(id) }, conf)));
  t.same(
    adds.filter((r) => r.code !== 0).map((r) => r.stdout),
    [],
    'every ADD succeeds',
  );
  const v4 = adds.map((r) => r.json?.ips?.[0]?.address as string);
  const v6 = adds.map((r) => r.json?.ips?.[1]?.address as string);
  t.equal(new Set(v4).size, N, `${N} distinct IPv4 addresses`);
  t.equal(new Set(v6).size, N, `${N} distinct IPv6 addresses`);
  const files = readdirSync(dir).filter((f) => f !== 'lock' && !f.startsWith('last_reserved_ip.'));
  t.equal(files.length, 2 * N, 'one file per address');
  const owners = new Map(files.map((f) => [f, readFileSync(join(dir, f), 'latin1')]));
  adds.forEach((r, i) => {
    const ip = (r.json?.ips?.[0]?.address as string).split('/')[0] as string;
    if (owners.get(ip) !== `par-${i}\r\neth0`) t.fail(`${ip} should belong to par-${i}, has ${JSON.stringify(owners.get(ip))}`);
  });

  const dels = await Promise.all(ids.map((id) => execPlugin('host-local', { command: 'DEL', ...env(id) }, conf)));
  t.same(
    dels.filter((r) => r.code !== 0).map((r) => r.stdout),
    [],
    'every DEL succeeds',
  );
  t.same(
    readdirSync(dir).filter((f) => f !== 'lock' && !f.startsWith('last_reserved_ip.')),
    [],
    'no address file is left',
  );
});
