// The dhcp tests' DHCP server (e2e/helpers/dhcp-server.ts) checked with a client that is not
// ours, busybox udhcpc, in a pod whose eth0 is a macvlan on the node's master, as the dhcp
// plugin's pods are: the lease file shows what the client got (address, MAC, client-id,
// hostname, expiry one lease time ahead), the options reach the client, a DHCPRELEASE empties
// the table, and the parsing of a lease file on a dnsmasq example. The positive control for
// every assertion the other e2e/dhcp files make on the server's table.
import t from 'tap';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientIdOf, DHCP_RANGE, eventually, makeDhcpLan, parseLeases } from '../helpers/dhcp-server.ts';
import { tempDir } from '../helpers/plugins.ts';
import { LAN } from '../helpers/lan.ts';
import { inSubnet, makePod } from '../helpers/topology.ts';
import { needsRoot, run } from '../../test-support/sh.ts';

const hex = (s: string) => Buffer.from(s).toString('hex');

// udhcpc's script: puts the address on (the release it sends on SIGUSR2 comes from it) and prints
// what the server sent (udhcpc passes the options in the environment).
const SCRIPT = `#!/bin/sh
case "$1" in
  bound) ip addr add "$ip/$mask" dev "$interface"; env ;;
esac
`;

t.test('parseLeases reads dnsmasq lease lines, * as absent, and skips the duid line', async (t) => {
  const text = [
    '1795809349 36:2e:5a:f0:e0:d2 10.61.0.66 podx 00:61:62',
    '1795809350 36:2e:5a:f0:e0:d3 10.61.0.67 * *',
    'duid 00:01:00:01:2c:aa:bb:cc:dd:ee:ff:00:11',
    '',
  ].join('\n');
  t.same(parseLeases(text), [
    { expiry: 1795809349, mac: '36:2e:5a:f0:e0:d2', ip: '10.61.0.66', hostname: 'podx', clientId: '00:61:62' },
    { expiry: 1795809350, mac: '36:2e:5a:f0:e0:d3', ip: '10.61.0.67', hostname: undefined, clientId: undefined },
  ]);
  t.equal(clientIdOf('c1', 'net', 'eth0'), '00:63:31:2f:6e:65:74:2f:65:74:68:30', 'type 0, then c1/net/eth0 in hex');
});

t.test('udhcpc in a macvlan pod gets a lease the server records, with the options; its release empties the table', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t, { t1: 30, t2: 50, classlessRoutes: [['10.70.0.0/16', LAN.hostAddr]] });
  const pod = await makePod(t);
  await run('ip', ['-n', w.node.name, 'link', 'add', 'mv0', 'link', LAN.master, 'type', 'macvlan', 'mode', 'bridge']);
  await run('ip', ['-n', w.node.name, 'link', 'set', 'mv0', 'netns', pod.name]);
  await run('ip', ['-n', pod.name, 'link', 'set', 'mv0', 'name', 'eth0']);
  await run('ip', ['-n', pod.name, 'link', 'set', 'eth0', 'up']);
  const [link] = JSON.parse(await run('ip', ['-n', pod.name, '-j', 'link', 'show', 'dev', 'eth0'])) as { address: string }[];
  const script = join(tempDir(t, 'cnits-udhcpc-'), 'script');
  writeFileSync(script, SCRIPT, { mode: 0o700 });
  // -f: stay in the foreground, as our child, until SIGTERM; SIGUSR2 makes it release
  const args = ['udhcpc', '-i', 'eth0', '-f', '-s', script, '-x', `0x3d:00${hex('udhcpc/test/eth0')}`, '-x', 'hostname:podx', '-O', '121'];
  const client = spawn('ip', ['netns', 'exec', pod.name, 'busybox', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  client.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  client.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise((resolve) => client.on('exit', resolve));
  t.teardown(async () => {
    if (client.exitCode === null && client.signalCode === null) client.kill('SIGTERM');
    await exited;
  });
  const before = Math.floor(Date.now() / 1000);
  const [l] = (await eventually(() => (w.server.leases().length > 0 ? w.server.leases() : undefined), 10_000)) ?? [];
  t.ok(l, `the server holds a lease: ${out}`);
  await eventually(() => (/^router=/m.test(out) ? true : undefined), 3000);
  t.match(out, `router=${LAN.hostAddr}`, 'the router option reached the client');
  t.match(out, /staticroutes=10\.70\.0\.0\/16 10\.61\.0\.254/, 'and the classless static route');
  t.match(out, 'lease=120', 'a lease of 2 minutes');
  t.equal(l?.mac, link?.address, "the pod's MAC");
  t.ok(l && inSubnet(l.ip, '10.61.0.0/24') && l.ip >= DHCP_RANGE.start, `an address of the range: ${l?.ip}`);
  t.equal(l?.clientId, clientIdOf('udhcpc', 'test', 'eth0'), 'the client-id, in clientIdOf form');
  t.equal(l?.hostname, 'podx', 'the hostname the client gave');
  t.ok(l && l.expiry >= before + 119 && l.expiry <= before + 125, `expiry one lease time ahead: ${(l?.expiry ?? 0) - before} s`);

  client.kill('SIGUSR2');
  const empty = await eventually(() => (w.server.leases().length === 0 ? true : undefined), 3000);
  t.ok(empty, `the release emptied the table: ${JSON.stringify(w.server.leases())}`);
});
