// The built dhcp IPAM under macvlan, its daemon started by the test in the node netns, a real
// DHCP server (dnsmasq) on the master's network: for every spec version, ADD puts the leased
// address on the pod's eth0 with the default route via the router, the server's lease table
// holds the pod's MAC and client-id, the result has the version's shape, CHECK passes, DEL
// releases the lease on the server (DHCPRELEASE) and leaves nothing, DEL again succeeds.
// Then the routes of option 121, a server that sends no router, a hostname from CNI_ARGS, the
// routes' priority, and CHECK failing for another address or a lease the daemon does not hold.
import t from 'tap';
import { attachment } from '../helpers/conflist.ts';
import { startDhcpDaemon } from '../helpers/dhcp-daemon.ts';
import { DHCP_NET, dhcpPod, macvlanDhcp, podGatewayRoutes, podInet, podMac } from '../helpers/dhcp-pod.ts';
import { clientIdOf, eventually, makeDhcpLan, type DhcpServer } from '../helpers/dhcp-server.ts';
import { LAN, linksBesideLo } from '../helpers/lan.ts';
import { allVersionsRan, hasCheck, ipsCarryVersion, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';
import { execPlugin } from '../helpers/plugins.ts';
import { ipJson, needsRoot } from '../../test-support/sh.ts';

const ROUTER = LAN.hostAddr;
const addrOf = (cidr: string) => cidr.slice(0, cidr.indexOf('/'));

/** Resolves once the server holds no lease of this client-id (a DHCPRELEASE reached it). */
const released = (server: DhcpServer, clientId: string) => eventually(() => (server.leases().some((l) => l.clientId === clientId) ? undefined : true), 5000);

const done: string[] = [];
t.test('every spec version: ADD, the leased address and default route, the server table, CHECK, DEL releases, DEL again', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const d = await startDhcpDaemon(t, w.node);
  for (const v of SPEC_VERSIONS) {
    const id = `dh-${v}`;
    const { pod, att } = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, id, { cniVersion: v });
    const r = await att.add();
    const address: string = isPre030(v) ? r.ip4?.ip : r.ips?.[0]?.address;
    t.match(address, /^10\.61\.0\.\d+\/24$/, `${v}: an address of the server's subnet`);
    if (isPre030(v)) {
      t.equal(r.ip4.gateway, ROUTER, `${v}: ip4.gateway is the router`);
      t.match(r.ip4.routes, [{ dst: '0.0.0.0/0', gw: ROUTER }], `${v}: ip4.routes holds the default route via the router`);
      t.notOk('ips' in r || 'interfaces' in r, `${v}: no ips or interfaces`);
    } else {
      t.equal(r.ips.length, 1, `${v}: one address`);
      t.equal(r.ips[0].gateway, ROUTER, `${v}: its gateway is the router`);
      if (ipsCarryVersion(v)) t.equal(r.ips[0].version, '4', `${v}: ips[0].version 4`);
      else t.notOk('version' in r.ips[0], `${v}: no version in ips[0]`);
      t.same(r.ips[0].interface, 0, `${v}: on interface 0`);
      t.match(r.interfaces, [{ name: 'eth0', mac: await podMac(pod), sandbox: pod.path }], `${v}: interface eth0 with its MAC and sandbox`);
      t.match(r.routes, [{ dst: '0.0.0.0/0', gw: ROUTER }], `${v}: the default route via the router`);
    }
    t.equal(r.cniVersion, v, `${v}: in the config's version`);
    t.same(await podInet(pod), [address], `${v}: eth0 holds the leased address`);
    t.ok((await podGatewayRoutes(pod)).includes(`default via ${ROUTER}`), `${v}: the pod's default route goes via the router`);

    const clientId = clientIdOf(id, DHCP_NET, 'eth0');
    const lease = w.server.leases().find((l) => l.clientId === clientId);
    t.equal(lease?.ip, addrOf(address), `${v}: the server leased that address to the pod's client-id`);
    t.equal(lease?.mac, await podMac(pod), `${v}: to the pod's MAC`);
    if (hasCheck(v)) await t.resolves(att.check(), `${v}: CHECK passes`);

    await att.del();
    t.ok(await released(w.server, clientId), `${v}: DEL released the lease on the server: ${JSON.stringify(w.server.leases())}`);
    t.same(await linksBesideLo(pod), [], `${v}: nothing left in the pod`);
    await t.resolves(att.del(), `${v}: a second DEL succeeds`);
    done.push(v);
  }
  t.same(w.server.leases(), [], 'the server holds no lease at the end');
});
allVersionsRan(t, done, needsRoot);

t.test('option 121: the classless static routes, and no default route (RFC 3442)', { skip: needsRoot }, async (t) => {
  const routes = [
    ['10.70.0.0/16', ROUTER],
    ['10.71.0.0/16', '10.61.0.253'],
  ] as const;
  const w = await makeDhcpLan(t, { classlessRoutes: routes });
  const d = await startDhcpDaemon(t, w.node);
  // dnsmasq sends option 121 only to a client that asks for it
  const { pod, att } = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, 'dh-121', { ipam: { request: [{ option: '121' }] } });
  const r = await att.add();
  t.teardown(() => att.del());
  t.same(
    [...r.routes].sort((a: { dst: string }, b: { dst: string }) => a.dst.localeCompare(b.dst)),
    routes.map(([dst, gw]) => ({ dst, gw })),
    'the result routes are those of option 121',
  );
  t.equal(r.ips[0].gateway, ROUTER, 'the gateway is still the router');
  t.same(await podGatewayRoutes(pod), ['10.70.0.0/16 via 10.61.0.254', '10.71.0.0/16 via 10.61.0.253'], 'the pod has those routes and no default');
  await t.resolves(att.check(), 'CHECK passes');
});

t.test('a server that sends no router: no gateway, no default route', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t, { routers: [] });
  const d = await startDhcpDaemon(t, w.node);
  const { pod, att } = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, 'dh-norouter');
  const r = await att.add();
  t.teardown(() => att.del());
  t.match(r.ips, [{ address: /^10\.61\.0\.\d+\/24$/ }], 'an address');
  t.notOk('gateway' in r.ips[0], 'no gateway');
  t.same(r.routes ?? [], [], 'no routes');
  t.same(await podGatewayRoutes(pod), [], 'no route via a gateway in the pod');
});

t.test('provide: the hostname from CNI_ARGS K8S_POD_NAME reaches the server', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const d = await startDhcpDaemon(t, w.node);
  const { pod } = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, 'unused');
  const list = {
    cniVersion: '1.0.0',
    name: DHCP_NET,
    plugins: [macvlanDhcp(d.socketPath, { provide: [{ option: 'host-name', fromArg: 'K8S_POD_NAME' }] })],
  };
  const att = attachment(
    list,
    // as containerd and CRI-O pass them for a Kubernetes pod
    {
      containerId: 'dh-host',
      netns: pod.path,
      ifname: 'eth0',
      args: [
        ['IgnoreUnknown', '1'],
        ['K8S_POD_NAMESPACE', 'default'],
        ['K8S_POD_NAME', 'web-0'],
      ],
    },
    { nodeNetns: w.node.name },
  );
  await att.add();
  t.teardown(() => att.del());
  const lease = w.server.leases().find((l) => l.clientId === clientIdOf('dh-host', DHCP_NET, 'eth0'));
  t.equal(lease?.hostname, 'web-0', 'the server recorded the pod name as its hostname');
});

t.test('ipam priority: every route of the result carries it, and the pod route has it as metric', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const d = await startDhcpDaemon(t, w.node);
  const { pod, att } = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, 'dh-prio', { ipam: { priority: 300 } });
  const r = await att.add();
  t.teardown(() => att.del());
  t.match(r.routes, [{ dst: '0.0.0.0/0', gw: ROUTER, priority: 300 }], 'the default route with priority 300');
  const routes = await ipJson<{ dst: string; gateway?: string; metric?: number }[]>(pod.name, ['-4', 'route', 'show', 'default']);
  t.match(routes, [{ dst: 'default', gateway: ROUTER, metric: 300 }], 'the pod default route has metric 300');
});

t.test('CHECK of the IPAM fails when the daemon holds another address, or no lease for the attachment', { skip: needsRoot }, async (t) => {
  const w = await makeDhcpLan(t);
  const d = await startDhcpDaemon(t, w.node);
  const { pod, att } = await dhcpPod(t, { node: w.node, socketPath: d.socketPath }, 'dh-check');
  const r = await att.add();
  t.teardown(() => att.del());
  // the dhcp plugin as macvlan delegates to it: macvlan's own config, with prevResult
  const check = (id: string, prevResult: unknown) =>
    execPlugin(
      'dhcp',
      { command: 'CHECK', containerId: id, netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name },
      { cniVersion: '1.0.0', name: DHCP_NET, ...macvlanDhcp(d.socketPath), prevResult },
    );
  t.equal((await check('dh-check', r)).code, 0, 'CHECK with the ADD result passes (control)');
  const other = { ...r, ips: [{ ...r.ips[0], address: '10.61.0.250/24' }] };
  const moved = await check('dh-check', other);
  t.not(moved.code, 0, `another address than the lease: CHECK fails ${moved.stdout}`);
  t.match(moved.json, { code: Number, msg: String }, 'with a CNI error');
  const none = await check('dh-other', r);
  t.not(none.code, 0, `no lease for that attachment: CHECK fails ${none.stdout}`);
  t.match(none.json, { code: Number, msg: String }, 'with a CNI error');
  t.equal(w.server.leases().length, 1, 'and CHECK acquired no lease');
});
