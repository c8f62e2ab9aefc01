// What a runtime sees when the DHCP side is missing, and how leases of gone pods are collected:
// no daemon (no socket, or a socket a killed daemon left) makes ADD fail with code 11 "error
// dialing DHCP daemon" and leaves no macvlan in the pod, STATUS fail with code 50 (and pass once
// the daemon runs); a lan with no DHCP server makes ADD fail within the daemon's short
// -timeout/-resendtimeout and leave nothing; GC (1.1.0) releases on the server the leases of the
// attachments it is not given.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { gc, status } from '../helpers/conflist.ts';
import { daemonDir, startDhcpDaemon } from '../helpers/dhcp-daemon.ts';
import { DHCP_NET, dhcpPod, macvlanDhcp, type DhcpPod } from '../helpers/dhcp-pod.ts';
import { clientIdOf, eventually, makeDhcpLan } from '../helpers/dhcp-server.ts';
import { linksBesideLo, makeLan } from '../helpers/lan.ts';
import { execPlugin } from '../helpers/plugins.ts';
import { makePod } from '../helpers/topology.ts';
import { needsRoot } from '../../test-support/sh.ts';

const listOf = (socketPath: string, cniVersion = '1.1.0') => ({ cniVersion, name: DHCP_NET, plugins: [macvlanDhcp(socketPath)] });

t.test('no daemon: ADD fails with code 11 and leaves no link, STATUS fails with code 50; both pass once it runs', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const dir = daemonDir(t);
  const pod = await makePod(t);
  const add = () =>
    execPlugin(
      'macvlan',
      { command: 'ADD', containerId: 'dh-nodaemon', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name },
      { cniVersion: '1.1.0', name: DHCP_NET, ...macvlanDhcp(dir.socketPath) },
    );
  const dhcpStatus = () => execPlugin('dhcp', { command: 'STATUS', nodeNetns: w.node.name }, { ...listOf(dir.socketPath), ...macvlanDhcp(dir.socketPath) });

  const noSocket = await add();
  t.equal(noSocket.code, 1, 'no socket: ADD exits 1');
  t.match(noSocket.json, { code: 11, msg: /^error dialing DHCP daemon/ }, `no socket: code 11, error dialing DHCP daemon: ${noSocket.stdout}`);
  t.same(await linksBesideLo(pod), [], 'no socket: no macvlan left in the pod');
  t.match((await dhcpStatus()).json, { code: 50 }, 'no socket: the dhcp plugin STATUS is code 50');
  await t.rejects(status(listOf(dir.socketPath), { nodeNetns: w.node.name }), { code: 50 }, 'no socket: STATUS of the network is code 50');

  // a daemon killed leaves its socket file: connecting is refused
  const killed = await startDhcpDaemon(t, w.node, dir);
  await killed.stop('SIGKILL');
  t.ok(existsSync(dir.socketPath), 'the killed daemon left its socket file');
  const refused = await add();
  t.match(refused.json, { code: 11, msg: /^error dialing DHCP daemon/ }, `a refused connection: code 11: ${refused.stdout}`);
  t.same(await linksBesideLo(pod), [], 'a refused connection: no macvlan left in the pod');
  t.match((await dhcpStatus()).json, { code: 50 }, 'a refused connection: STATUS is code 50');

  await startDhcpDaemon(t, w.node, dir);
  t.equal((await dhcpStatus()).code, 0, 'the daemon runs: the dhcp plugin STATUS passes');
  await t.resolves(status(listOf(dir.socketPath), { nodeNetns: w.node.name }), 'the daemon runs: STATUS of the network passes');
  const ok = await add();
  t.equal(ok.code, 0, `the daemon runs: ADD succeeds ${ok.stdout}`);
  t.teardown(() =>
    execPlugin(
      'macvlan',
      { command: 'DEL', containerId: 'dh-nodaemon', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name },
      { cniVersion: '1.1.0', name: DHCP_NET, ...macvlanDhcp(dir.socketPath) },
    ),
  );
});

t.test('no DHCP server answering: ADD fails within the short timeouts and leaves nothing', { skip: needsRoot }, async (t) => {
  const w = await makeLan(t);
  const d = await startDhcpDaemon(t, w.node, daemonDir(t), ['-timeout', '1s', '-resendtimeout', '4s']);
  const { pod, att } = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, 'dh-noserver');
  const t0 = Date.now();
  const err = await att.add().then(
    () => undefined,
    (e: Error) => e,
  );
  t.ok(err, `ADD fails: ${err?.message}`);
  const s = (Date.now() - t0) / 1000;
  t.ok(s < 20, `within seconds of -resendtimeout 4s: ${s.toFixed(1)} s`);
  t.same(await linksBesideLo(pod), [], 'no macvlan left in the pod');
  const state = existsSync(d.stateDir) ? readdirSync(d.stateDir) : [];
  t.same(state, [], `no lease in the daemon's state dir ${join(d.stateDir)}`);
  await t.resolves(att.del(), 'DEL succeeds');
});

t.test('GC (1.1.0) releases on the server the leases of the attachments it is not given', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const d = await startDhcpDaemon(t, w.node);
  const ids = ['dh-gc-keep', 'dh-gc-gone1', 'dh-gc-gone2'];
  const pods: DhcpPod[] = [];
  for (const id of ids) {
    const p = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, id, { cniVersion: '1.1.0' });
    await p.att.add();
    t.teardown(() => p.att.del());
    pods.push(p);
  }
  const held = () =>
    w.server
      .leases()
      .map((l) => l.clientId)
      .sort();
  const idsOf = (...which: string[]) => which.map((id) => clientIdOf(id, DHCP_NET, 'eth0')).sort();
  t.same(held(), idsOf(...ids), 'three leases on the server');
  await gc(listOf(d.socketPath), [{ containerID: 'dh-gc-keep', ifname: 'eth0' }], { nodeNetns: w.node.name });
  const after = await eventually(() => (held().length === 1 ? held() : undefined), 5000);
  t.same(after, idsOf('dh-gc-keep'), `GC released the two not listed, kept the listed one: ${JSON.stringify(w.server.leases())}`);
  await t.resolves(pods[0]?.att.check() ?? Promise.reject(new Error('no pod')), 'the kept attachment still passes CHECK');
});
