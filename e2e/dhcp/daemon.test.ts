// The daemon as a node's operator sees it: its socket is root's alone (0600, in a directory it
// makes 0700), its -pidfile holds its pid while it runs and is gone with the socket after SIGTERM,
// it takes Go's flag spellings (`-name value`, `-name=value`, `--name value`), and it logs the
// lease events of a pod on stderr, one line each; -hostprefix finds everything under the prefix.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { daemonDir, startDhcpDaemon } from '../helpers/dhcp-daemon.ts';
import { dhcpPod, podInet } from '../helpers/dhcp-pod.ts';
import { eventually, makeDhcpLan } from '../helpers/dhcp-server.ts';
import { tempDir } from '../helpers/plugins.ts';
import { needsRoot, run, tryRun } from '../../test-support/sh.ts';

t.test('the socket 0600 in a directory made 0700, the pidfile, both gone after SIGTERM; Go flag spellings', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const base = daemonDir(t);
  const socketPath = join(base.dir, 'run', 'cni', 'dhcp.sock');
  const pidfile = join(base.dir, 'dhcp.pid');
  const dir = { ...base, socketPath };
  // -pidfile=PATH and --timeout 5s: the spellings Go's flag package takes besides `-name value`
  const d = await startDhcpDaemon(t, w.node, dir, [`-pidfile=${pidfile}`, '--timeout', '5s']);
  t.equal(statSync(socketPath).mode & 0o777, 0o600, 'the socket is 0600');
  t.equal(statSync(join(base.dir, 'run', 'cni')).mode & 0o777, 0o700, 'its directory, made by the daemon, is 0700');
  t.equal(readFileSync(pidfile, 'utf8').trim(), String(d.pid), 'the pidfile holds the daemon pid');

  const { att } = await dhcpPod(t, { node: w.node, socketPath }, 'dh-log');
  await att.add();
  await att.del();
  const logged = await eventually(() => (/releas/i.test(d.log()) ? d.log() : undefined), 3000);
  const lines = (logged ?? d.log()).split('\n').filter((l) => l.includes('dh-log/dhcpnet/eth0'));
  t.ok(
    lines.some((l) => /lease acquired/.test(l)),
    `a line for the acquired lease: ${lines.join(' | ')}`,
  );
  t.ok(
    lines.some((l) => /releasing lease/.test(l)),
    'a line for the release',
  );

  t.equal(await d.stop('SIGTERM'), 'exit 0', 'SIGTERM: exit 0');
  t.notOk(existsSync(socketPath), 'the socket is gone');
  t.notOk(existsSync(pidfile), 'the pidfile is gone');
});

// -hostprefix: the daemon in a container that sees the node's root under a prefix (a DaemonSet
// mounting / at /host). The socket, the state and every netns path the plugin names are looked
// up under it; the plugin, on the node, names them as the node sees them.
t.test('-hostprefix: socket, state and the pod netns are found under the prefix', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const prefix = tempDir(t, 'cnits-dhcp-host-');
  const { pod, att } = await dhcpPod(t, { node: w.node, socketPath: join(prefix, 'dhcp.sock') }, 'dh-prefix');
  // The pod's netns as the container would see it: the node's /run/netns/<pod> under the prefix.
  const seen = join(prefix, pod.path);
  mkdirSync(dirname(seen), { recursive: true });
  writeFileSync(seen, '');
  await run('mount', ['--bind', pod.path, seen]);
  t.teardown(() => tryRun('umount', [seen]));
  const before = ['/dhcp.sock', '/state'].filter((p) => existsSync(p));
  const dir = { dir: prefix, socketPath: join(prefix, 'dhcp.sock'), stateDir: '/state' };
  // The later -socketpath wins, as with Go's flag package: the path inside the prefix.
  await startDhcpDaemon(t, w.node, dir, ['-hostprefix', prefix, '-socketpath', '/dhcp.sock']);
  const r = await att.add();
  t.same(await podInet(pod), [r.ips[0].address], 'the pod got its lease');
  t.equal(readdirSync(join(prefix, 'state')).filter((f) => f.endsWith('.lease.json')).length, 1, 'the lease is kept under the prefix');
  t.same(
    ['/dhcp.sock', '/state'].filter((p) => existsSync(p)),
    before,
    'nothing made outside it',
  );
  await att.del();
  t.same(readdirSync(join(prefix, 'state')), [], 'DEL forgets the lease');
});
