// Twenty pods attached at once through one daemon, as a node starting many pods would: twenty
// distinct leases, each on its pod's eth0 and in the server's table under its pod's MAC and
// client-id; then twenty DELs at once, and the server's table is empty.
import t from 'tap';
import { startDhcpDaemon } from '../helpers/dhcp-daemon.ts';
import { DHCP_NET, dhcpPod, podInet, podMac, type DhcpPod } from '../helpers/dhcp-pod.ts';
import { clientIdOf, eventually, makeDhcpLan } from '../helpers/dhcp-server.ts';
import { linksBesideLo } from '../helpers/lan.ts';
import { needsRoot } from '../../test-support/sh.ts';

const N = 20;

t.test(`${N} pods ADD at once: ${N} distinct leases in the server's table; ${N} DELs at once empty it`, { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const d = await startDhcpDaemon(t, w.node);
  const pods: DhcpPod[] = [];
  for (let i = 0; i < N; i++) pods.push(await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, `dh-par-${i}`));
  for (const p of pods) t.teardown(() => p.att.del());

  const added = await Promise.allSettled(pods.map((p) => p.att.add()));
  const failed = added.flatMap((r, i) => (r.status === 'rejected' ? [`${pods[i]?.id}: ${String(r.reason)}`] : []));
  t.same(failed, [], 'every ADD succeeded');
  const addresses = added.map((r) => (r.status === 'fulfilled' ? (r.value.ips?.[0]?.address as string) : ''));
  t.equal(new Set(addresses).size, N, `${N} distinct addresses: ${addresses.join(' ')}`);

  const table = w.server.leases();
  t.equal(table.length, N, `${N} leases in the server's table`);
  for (const [i, p] of pods.entries()) {
    const lease = table.find((l) => l.clientId === clientIdOf(p.id, DHCP_NET, 'eth0'));
    const mac = await podMac(p.pod);
    const ok = lease !== undefined && `${lease.ip}/24` === addresses[i] && lease.mac === mac;
    const onEth0 = (await podInet(p.pod)).join(' ') === addresses[i];
    if (!ok || !onEth0) t.fail(`${p.id}: server ${JSON.stringify(lease)}, pod ${mac} ${(await podInet(p.pod)).join(' ')}, result ${addresses[i]}`);
  }
  t.pass(`each pod holds its own lease: its address on eth0, its MAC and client-id on the server`);

  const deleted = await Promise.allSettled(pods.map((p) => p.att.del()));
  t.same(
    deleted.flatMap((r, i) => (r.status === 'rejected' ? [`${pods[i]?.id}: ${String(r.reason)}`] : [])),
    [],
    'every DEL succeeded',
  );
  const empty = await eventually(() => (w.server.leases().length === 0 ? true : undefined), 5000);
  t.ok(empty, `the server's table is empty: ${JSON.stringify(w.server.leases())}`);
  for (const p of pods) if ((await linksBesideLo(p.pod)).length > 0) t.fail(`${p.id}: a link is left in the pod`);
});
