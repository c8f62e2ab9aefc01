// The leases over time, as the DHCP server sees them: with a short renewal time (T1, option 58)
// the daemon renews, so the server's expiry moves forward while the pod keeps its address; and a
// daemon stopped (SIGTERM, as systemd stops it, or SIGINT) or killed (SIGKILL) and started again with the
// same state dir takes every lease back: each pod keeps its address, the server's lease is
// renewed, CHECK passes, and DEL releases it on the server.
import { existsSync } from 'node:fs';
import t from 'tap';
import { daemonDir, startDhcpDaemon } from '../helpers/dhcp-daemon.ts';
import { DHCP_NET, dhcpPod, podInet, type DhcpPod } from '../helpers/dhcp-pod.ts';
import { clientIdOf, eventually, makeDhcpLan, type DhcpServer, type ServerLease } from '../helpers/dhcp-server.ts';
import { linksBesideLo } from '../helpers/lan.ts';
import { needsRoot } from '../../test-support/sh.ts';

// dnsmasq's shortest lease is 2 minutes; T1 and T2 make the client renew within seconds
const SHORT_RENEWAL = { leaseTime: '2m', t1: 4, t2: 8 } as const;

const leaseOf = (server: DhcpServer, id: string): ServerLease | undefined => server.leases().find((l) => l.clientId === clientIdOf(id, DHCP_NET, 'eth0'));

/** Waits until the server's lease of `id` expires later than `after` (a renewal reached it). */
const renewedAfter = (server: DhcpServer, id: string, after: number, ms = 20_000) =>
  eventually(() => {
    const l = leaseOf(server, id);
    return l && l.expiry > after ? l : undefined;
  }, ms);

t.test('a short T1: the daemon renews, the server expiry moves forward, the pod keeps its address', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t, SHORT_RENEWAL);
  const d = await startDhcpDaemon(t, w.node);
  const { pod, att } = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, 'dh-renew');
  const r = await att.add();
  t.teardown(() => att.del());
  const first = leaseOf(w.server, 'dh-renew');
  t.ok(first, 'the server holds the lease');
  for (const round of [1, 2]) {
    const before = leaseOf(w.server, 'dh-renew')?.expiry ?? 0;
    const renewed = await renewedAfter(w.server, 'dh-renew', before);
    t.ok(renewed, `renewal ${round}: the server's expiry moved past ${before}${renewed ? '' : `: ${d.log()}`}`);
    t.equal(renewed?.ip, first?.ip, `renewal ${round}: the same address`);
    t.same(await podInet(pod), [r.ips[0].address], `renewal ${round}: the pod keeps its address`);
  }
  t.equal(w.server.leases().length, 1, 'one lease all along');
});

for (const signal of ['SIGTERM', 'SIGINT', 'SIGKILL'] as const) {
  t.test(
    `${signal} and a restart with the same state dir: every pod keeps its address, the lease is renewed, DEL releases it`,
    { skip: needsRoot },
    async (t) => {
      const w = await makeDhcpLan(t, SHORT_RENEWAL);
      const dir = daemonDir(t);
      const first = await startDhcpDaemon(t, w.node, dir);
      const pods: DhcpPod[] = [];
      const addresses = new Map<string, string>();
      for (const n of [1, 2, 3]) {
        const p = await dhcpPod(t, { node: w.node, socketPath: dir.socketPath }, `dh-${signal}-${n}`);
        const r = await p.att.add();
        addresses.set(p.id, r.ips[0].address);
        pods.push(p);
      }
      // SIGKILL right after the last ADD answered: what it wrote before answering must be enough
      const ended = await first.stop(signal);
      t.equal(ended, signal === 'SIGKILL' ? 'SIGKILL' : 'exit 0', `the daemon ended by ${signal}`);
      if (signal !== 'SIGKILL') t.notOk(existsSync(dir.socketPath), `${signal}: the daemon removed its socket`);
      const atStop = new Map(pods.map((p) => [p.id, leaseOf(w.server, p.id)]));
      for (const p of pods) {
        t.equal(atStop.get(p.id)?.ip, addresses.get(p.id)?.split('/')[0], `${p.id}: the server still holds the lease (no release on ${signal})`);
      }

      const second = await startDhcpDaemon(t, w.node, dir);
      for (const p of pods) {
        const renewed = await renewedAfter(w.server, p.id, atStop.get(p.id)?.expiry ?? 0);
        t.ok(renewed, `${p.id}: the restarted daemon renewed the lease on the server${renewed ? '' : `: ${second.log()}`}`);
        t.equal(renewed?.ip, atStop.get(p.id)?.ip, `${p.id}: the same address on the server`);
        t.same(await podInet(p.pod), [addresses.get(p.id)], `${p.id}: the pod keeps its address`);
        await t.resolves(p.att.check(), `${p.id}: CHECK passes against the restarted daemon`);
      }
      t.equal(w.server.leases().length, 3, 'three leases, no new one');

      for (const p of pods) {
        await p.att.del();
        const gone = await eventually(() => (leaseOf(w.server, p.id) ? undefined : true), 5000);
        t.ok(gone, `${p.id}: DEL released the lease on the server`);
        t.same(await linksBesideLo(p.pod), [], `${p.id}: nothing left in the pod`);
      }
      t.same(w.server.leases(), [], 'the server table is empty');
    },
  );
}
