// host-local's data directory with links planted in it: root must not write through them to a
// file elsewhere. The Go plugin (the control) writes its round-robin marker through the link.
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { makeNetns } from '../helpers/netns.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { DIST_BIN, execPlugin, GO_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';

const conf = (dataDir: string) => ({
  cniVersion: '1.0.0',
  name: 'hl-net',
  type: 'host-local-test',
  ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.12.0.0/24' }]] },
});

for (const [impl, binDir] of [
  ['ours', DIST_BIN],
  ['Go v1.1.1', GO_BIN],
] as const) {
  t.test(`[${impl}] a link at last_reserved_ip.0 pointing outside the data directory`, { skip: needsRoot }, async (t) => {
    const ns = await makeNetns(t, 'hls');
    const root = tempDir(t);
    const dataDir = join(root, 'data');
    mkdirSync(join(dataDir, 'hl-net'), { recursive: true });
    const victim = join(root, 'victim');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, join(dataDir, 'hl-net', 'last_reserved_ip.0'));
    const env = { containerId: 'ctr1', netns: ns.path, ifname: 'eth0' };
    const add = await execPlugin('host-local', { command: 'ADD', ...env }, conf(dataDir), binDir);
    t.equal(add.code, 0, add.stdout);
    if (impl === 'ours') {
      t.equal(readFileSync(victim, 'latin1'), 'precious', 'the file the link pointed at is untouched');
      t.ok(lstatSync(join(dataDir, 'hl-net', 'last_reserved_ip.0')).isFile(), 'the link was replaced by the marker');
    } else {
      t.equal(readFileSync(victim, 'latin1'), '10.12.0.2', 'the reference writes its marker through the link');
    }
    const del = await execPlugin('host-local', { command: 'DEL', ...env }, conf(dataDir), binDir);
    t.equal(del.code, 0, del.stdout);
    t.same(ipFiles(dataDir, 'hl-net'), []);
  });
}

t.test('[ours] a link at the lock: every verb fails naming it, and nothing is written', { skip: needsRoot }, async (t) => {
  const ns = await makeNetns(t, 'hls');
  const root = tempDir(t);
  const dataDir = join(root, 'data');
  mkdirSync(join(dataDir, 'hl-net'), { recursive: true });
  const absent = join(root, 'absent');
  const lock = join(dataDir, 'hl-net', 'lock');
  symlinkSync(absent, lock);
  const env = { containerId: 'ctr1', netns: ns.path, ifname: 'eth0' };
  for (const command of ['ADD', 'DEL'] as const) {
    const r = await execPlugin('host-local', { command, ...env }, conf(dataDir));
    t.equal(r.code, 1, `${command} fails`);
    t.match(r.json, { code: 999, msg: `refusing lock file ${lock}: it is a symbolic link` }, command);
  }
  t.throws(() => lstatSync(absent), { code: 'ENOENT' }, "the link's target was not created");
  t.same(ipFiles(dataDir, 'hl-net'), [], 'no address taken');
});
