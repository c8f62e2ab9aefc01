// conf-examples/macvlan-dhcp.conflist and the systemd units beside it (cni-dhcp.socket,
// cni-dhcp.service). The units agree: the socket listens where the plugin dials by default
// (the list sets no daemonSocketPath), the service runs /opt/cni/bin/dhcp daemon and needs the
// socket. Then the list runs as e2e/runtimes/conf-examples.test.ts runs every other example
// (`cni-run validate`, then `cni-run add/check/del` by network name from a conf dir, for a fresh
// pod; that file leaves this list out: it needs a DHCP server and the daemon), with the daemon
// started as the units start it: systemd-socket-activate listening, the service's ExecStart
// (the binary from the form under test) handed the socket on the first connection. The one change
// to the files: the socket and the state live in a temp dir, never the host's /run or /var/lib.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { cniRun, confDirWith } from '../helpers/cni-run.ts';
import { CONF_EXAMPLES, readExample } from '../helpers/conf-examples.ts';
import { daemonDir, DHCP_BIN } from '../helpers/dhcp-daemon.ts';
import { podInet, podMac } from '../helpers/dhcp-pod.ts';
import { clientIdOf, eventually, makeDhcpLan } from '../helpers/dhcp-server.ts';
import { LAN, linksBesideLo } from '../helpers/lan.ts';
import { BASE_ENV, DIST_BIN } from '../helpers/plugins.ts';
import { makePod } from '../helpers/topology.ts';
import { needsRoot } from '../../test-support/sh.ts';

const FILE = 'macvlan-dhcp.conflist';
/** The plugin's and the daemon's default socket (the reference's defaultSocketPath, daemon.go). */
const DEFAULT_SOCKET = '/run/cni/dhcp.sock';
const INSTALLED_DHCP = '/opt/cni/bin/dhcp';

type Unit = Record<string, Record<string, string[]>>;

/** A unit file's sections and their keys, each with its values in order (keys may repeat). */
function readUnit(file: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  for (const raw of readFileSync(join(CONF_EXAMPLES, file), 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) {
      section = unit[head[1] as string] ??= {};
      continue;
    }
    const eq = line.indexOf('=');
    if (section === undefined || eq < 0) throw new Error(`${file}: not a unit line: ${line}`);
    (section[line.slice(0, eq).trim()] ??= []).push(line.slice(eq + 1).trim());
  }
  return unit;
}

const words = (values: string[] | undefined) => (values ?? []).flatMap((v) => v.split(/\s+/));

t.test('cni-dhcp.socket and cni-dhcp.service agree: one socket path, the installed dhcp binary, tied together', async (t) => {
  const socket = readUnit('cni-dhcp.socket');
  const service = readUnit('cni-dhcp.service');
  t.same(socket['Socket']?.['ListenStream'], [DEFAULT_SOCKET], 'the socket listens where the plugin dials by default');
  t.same(socket['Socket']?.['SocketMode'], ['0600'], 'for root only');
  t.same(socket['Unit']?.['PartOf'], ['cni-dhcp.service'], 'the socket is part of the service');
  t.same(socket['Install']?.['WantedBy'], ['sockets.target'], 'enabled with the sockets');
  const exec = service['Service']?.['ExecStart'] ?? [];
  t.equal(exec.length, 1, 'one ExecStart');
  const [bin, verb, ...flags] = words(exec);
  t.equal(bin, INSTALLED_DHCP, 'it runs the installed dhcp');
  t.equal(verb, 'daemon', 'as the daemon');
  const at = flags.findIndex((f) => /^-?-socketpath(=|$)/.test(f));
  if (at >= 0) t.equal(flags[at]?.includes('=') ? flags[at]?.split('=')[1] : flags[at + 1], DEFAULT_SOCKET, 'a -socketpath names the socket unit path');
  t.ok(words(service['Unit']?.['Requires']).includes('cni-dhcp.socket'), 'the service requires the socket');
  t.ok(words(service['Unit']?.['After']).includes('cni-dhcp.socket'), 'and starts after it');
  const list = readExample(FILE);
  const ipam = list.plugins[0]?.['ipam'] as Record<string, unknown> | undefined;
  t.equal(ipam?.['type'], 'dhcp', 'the example list uses the dhcp IPAM');
  t.equal(ipam?.['daemonSocketPath'] ?? DEFAULT_SOCKET, socket['Socket']?.['ListenStream']?.[0], 'and dials the socket unit path');
});

t.test(`${FILE}: cni-run validate, add, check, del, its daemon socket-activated as the units run it`, { skip: needsRoot }, async (t) => {
  const v = await cniRun(['validate', join(CONF_EXAMPLES, FILE)]);
  t.equal(v.code, 0, `validate: ${v.stdout}${v.stderr}`);
  const original = readExample(FILE);
  t.equal(original.plugins[0]?.['master'], LAN.master, "the list's master is the node's eth0, as in the test's node");
  const w = await makeDhcpLan(t);
  const d = daemonDir(t);

  // ExecStart with the form under test in place of /opt/cni/bin, and the temp socket and state
  const [bin = '', ...rest] = words(readUnit('cni-dhcp.service')['Service']?.['ExecStart']);
  const exec = [bin.replace(/^\/opt\/cni\/bin\//, `${DIST_BIN}/`), ...rest, '-socketpath', d.socketPath, '-statedir', d.stateDir];
  t.equal(exec[0], DHCP_BIN, 'the service runs our dhcp');
  // non-accept mode: it listens, and on the first connection execs the service in its own process
  const child = spawn('ip', ['netns', 'exec', w.node.name, 'systemd-socket-activate', '-l', d.socketPath, ...exec], {
    env: { ...BASE_ENV },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (log += s));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  for (let i = 0; i < 200 && !existsSync(d.socketPath); i++) await sleep(25);

  const list = { ...original, plugins: original.plugins.map((p) => ({ ...p, ipam: { ...(p['ipam'] as object), daemonSocketPath: d.socketPath } })) };
  const { confDir, cacheDir } = confDirWith(t, { '10-macvlan-dhcp.conflist': list });
  const pod = await makePod(t);
  const containerId = `ex-${process.pid}`;
  const common = ['--conf-dir', confDir, '--plugin-dir', DIST_BIN, '--cache-dir', cacheDir, '--container-id', containerId];
  const cni = (verb: string) => cniRun([verb, original.name, pod.path, ...common], { nodeNetns: w.node.name });

  const add = await cni('add');
  t.equal(add.code, 0, `add${add.code === 0 ? '' : `: ${add.stdout}${add.stderr}${log}`}`);
  t.match(log, /Execing .*dhcp/, 'the first connection started the daemon');
  const result = JSON.parse(add.stdout || '{}');
  t.match(result.ips, [{ address: /^10\.61\.0\.\d+\/24$/, gateway: LAN.hostAddr }], 'an address from the DHCP server, its router as gateway');
  t.same(await podInet(pod), [result.ips?.[0]?.address], 'on the pod eth0');
  const clientId = clientIdOf(containerId, original.name, 'eth0');
  const lease = w.server.leases().find((l) => l.clientId === clientId);
  t.match(lease, { ip: result.ips?.[0]?.address?.split('/')[0], mac: await podMac(pod) }, "the server's lease: the pod's address and MAC");
  const check = await cni('check');
  t.equal(check.code, 0, `check: ${check.stderr}`);
  const del = await cni('del');
  t.equal(del.code, 0, `del: ${del.stderr}`);
  const released = await eventually(() => (w.server.leases().some((l) => l.clientId === clientId) ? undefined : true), 5000);
  t.ok(released, 'DEL released the lease on the server');
  t.same(await linksBesideLo(pod), [], 'after DEL the pod has only lo');
  t.notOk(existsSync(join(cacheDir, 'results', `${original.name}-${containerId}-eth0`)), 'DEL removed the cached result');
  t.equal((await cni('del')).code, 0, 'DEL again succeeds');
});
