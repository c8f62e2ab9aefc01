// A pod is reachable the moment ADD returns: a runtime marks it ready then, and Kubernetes sends
// it traffic at once. A fresh node netns gives fresh bridges. Every server listens, and every
// prober has started and waits, before ADD; the probes go out the moment ADD returns, all at
// once, each one attempt with a bounded wait (a TCP connect, or one UDP datagram's answer,
// 1.5 s as in helpers/portmap.ts; no retries, no sleeps). On a fresh bridge the IPv6 gateway
// and the bridge's link-local address used to be tentative (duplicate address detection) for
// 1-2 s after ADD: see docs/architecture.md#a-pod-is-reachable-when-add-returns.
import t, { type Test } from 'tap';
import { addrs, POD_V4, POD_V6, type BridgeResult } from '../helpers/bridge-net.ts';
import { attachment } from '../helpers/conflist.ts';
import { portmapList, startNamedServer } from '../helpers/portmap.ts';
import { startProber, type Probe } from '../helpers/probes.ts';
import { ipJson, needsRoot, nsExec } from '../../test-support/sh.ts';
import { makePod, makeTopology, UPLINK } from '../helpers/topology.ts';

interface Ports {
  readonly tcp: number;
  readonly udp: number;
}

const NODE_PORTS: Ports = { tcp: 9080, udp: 9081 };
const POD_PORTS: Ports = { tcp: 80, udp: 81 };
const HOST_PORTS: Ports = { tcp: 8080, udp: 8080 };
const PROBE_LIMIT_MS = 1500;
/** A second network on its own bridge, without portmap: ADD returns as soon as bridge does. */
const PLAIN = { bridge: 'cni1', v4: { subnet: '10.245.0.0/24', gateway: '10.245.0.1' }, v6: { subnet: 'fd00:10:245::/64', gateway: 'fd00:10:245::1' } };

interface AddrFlags {
  local: string;
  tentative?: boolean;
  optimistic?: boolean;
  dadfailed?: boolean;
}

/** IPv6 addresses of a link that are not usable yet (tentative, optimistic or DAD failed). */
async function unusableV6(ns: string, dev: string): Promise<string[]> {
  const links = await ipJson<{ addr_info: AddrFlags[] }[]>(ns, ['-6', 'addr', 'show', 'dev', dev]);
  return links.flatMap((l) => l.addr_info.filter((a) => a.tentative || a.optimistic || a.dadfailed).map((a) => a.local));
}

/** Ports of the node's bridges that do not forward. */
async function notForwarding(ns: string): Promise<string[]> {
  const r = await nsExec(ns, 'bridge', ['-j', 'link', 'show']);
  if (r.code !== 0) throw new Error(`bridge link show failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { ifname: string; state: string }[]).filter((p) => p.state !== 'forwarding').map((p) => `${p.ifname} ${p.state}`);
}

interface Expect {
  readonly what: string;
  readonly from: string;
  readonly probe: Probe;
  readonly who: string;
}

/** A TCP and a UDP probe from `from` to addr, each expecting `who` to answer. */
const both = (from: string, [addr, ports]: readonly [string | undefined, Ports], who: string, what: string): Expect[] => [
  { what: `TCP ${what}`, from, probe: { proto: 'tcp', host: addr ?? '', port: ports.tcp }, who },
  { what: `UDP ${what}`, from, probe: { proto: 'udp', host: addr ?? '', port: ports.udp }, who },
];

/**
 * Starts a prober in each source netns, runs ADD, and the moment it returns fires the probes
 * `plan` names (they may need the result's addresses) together with the state checks in
 * `states`; then asserts every answer.
 */
async function addThenProbe(
  t: Test,
  sources: readonly string[],
  add: () => Promise<BridgeResult>,
  o: { plan: (r: BridgeResult) => Expect[]; states?: readonly [string, () => Promise<string[]>][] },
): Promise<BridgeResult> {
  const probers = await Promise.all(sources.map((s) => startProber(t, s, PROBE_LIMIT_MS)));
  const r = await add();
  const all = o.plan(r);
  const states = o.states ?? [];
  const [answers, seen] = await Promise.all([
    Promise.all(sources.map((s, i) => probers[i]!.fire(all.filter((e) => e.from === s).map((e) => e.probe)))),
    Promise.all(states.map(([, read]) => read())),
  ]);
  states.forEach(([what], i) => t.same(seen[i], [], what));
  sources.forEach((s, i) => all.filter((e) => e.from === s).forEach((e, j) => t.equal(answers[i]?.[j], e.who, `${e.what} (${answers[i]?.[j]})`)));
  return r;
}

t.test('a pod answers the moment ADD returns: first pod on a fresh bridge, next pod, hostPort, IPv4 and IPv6', { skip: needsRoot }, async (t) => {
  const { node, remote, dataDir } = await makeTopology(t, { remote: true });
  const [podA, pod1, pod2] = [await makePod(t), await makePod(t), await makePod(t)];
  const n = node.name;
  const r = remote!.name;
  // Everyone listens before ADD: nothing below waits for anything but the network.
  await Promise.all([
    startNamedServer(t, n, 'node', NODE_PORTS),
    startNamedServer(t, podA.name, 'podA', POD_PORTS),
    startNamedServer(t, pod1.name, 'pod1', POD_PORTS),
    startNamedServer(t, pod2.name, 'pod2', POD_PORTS),
  ]);

  // bridge alone: its ADD is the runtime's ADD, nothing after it buys time
  const plain = {
    cniVersion: '1.0.0',
    name: 'plain',
    plugins: [
      {
        type: 'bridge',
        bridge: PLAIN.bridge,
        isDefaultGateway: true,
        ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: PLAIN.v4.subnet }], [{ subnet: PLAIN.v6.subnet }]] },
      },
    ],
  };
  const aA = attachment(plain, { containerId: `ready-a-${process.pid}`, netns: podA.path, ifname: 'eth0' }, { nodeNetns: n });
  await addThenProbe(t, [n, podA.name], () => aA.add(), {
    plan: (res) => [
      ...both(n, [addrs(res).v4, POD_PORTS], 'podA', 'from the node to the first pod of a bridge over IPv4'),
      ...both(n, [addrs(res).v6, POD_PORTS], 'podA', '…over IPv6'),
      ...both(podA.name, [PLAIN.v4.gateway, NODE_PORTS], 'node', 'from that pod to its gateway over IPv4'),
      ...both(podA.name, [PLAIN.v6.gateway, NODE_PORTS], 'node', '…over IPv6'),
    ],
    states: [
      [`when ADD returned, no IPv6 address of ${PLAIN.bridge} was tentative`, () => unusableV6(n, PLAIN.bridge)],
      ["…nor of the pod's interface", () => unusableV6(podA.name, 'eth0')],
      ['…and every bridge port forwarded', () => notForwarding(n)],
    ],
  });

  // the Kubernetes chain: bridge, then portmap with a hostPort
  const list = portmapList({ dataDir, backend: 'iptables', v6: true });
  const portMappings = [
    { hostPort: HOST_PORTS.tcp, containerPort: POD_PORTS.tcp, protocol: 'tcp' },
    { hostPort: HOST_PORTS.udp, containerPort: POD_PORTS.udp, protocol: 'udp' },
  ];
  const a1 = attachment(list, { containerId: `ready-1-${process.pid}`, netns: pod1.path, ifname: 'eth0', capabilityArgs: { portMappings } }, { nodeNetns: n });
  const a2 = attachment(list, { containerId: `ready-2-${process.pid}`, netns: pod2.path, ifname: 'eth0' }, { nodeNetns: n });
  const hostPortProbes = (res: BridgeResult, when: string): Expect[] => [
    ...both(r, [UPLINK.nodeV4, HOST_PORTS], 'pod1', `${when}from another netns to the hostPort over IPv4`),
    ...both(r, [UPLINK.nodeV6, HOST_PORTS], 'pod1', `${when}from another netns to the hostPort over IPv6`),
    ...both(n, [addrs(res).v6, POD_PORTS], 'pod1', `${when}from the node to the pod over IPv6`),
    ...both(pod1.name, [POD_V4.gateway, NODE_PORTS], 'node', `${when}from the pod to its gateway over IPv4`),
    ...both(pod1.name, [POD_V6.gateway, NODE_PORTS], 'node', `${when}from the pod to its gateway over IPv6`),
  ];
  const ip1 = addrs(
    await addThenProbe(t, [r, n, pod1.name], () => a1.add(), {
      plan: (res) => hostPortProbes(res, ''),
      states: [['when the chain returned, no IPv6 address of cni0 was tentative', () => unusableV6(n, 'cni0')]],
    }),
  );

  await addThenProbe(t, [pod2.name, pod1.name], () => a2.add(), {
    plan: (res) => [
      ...both(pod2.name, [ip1.v4, POD_PORTS], 'pod1', 'from the next pod to the first over IPv4'),
      ...both(pod2.name, [ip1.v6, POD_PORTS], 'pod1', '…over IPv6'),
      ...both(pod1.name, [addrs(res).v6, POD_PORTS], 'pod2', 'from the first pod to the next over IPv6'),
      ...both(pod2.name, [POD_V6.gateway, NODE_PORTS], 'node', 'from the next pod to its gateway over IPv6'),
    ],
  });

  // A bridge without ports loses its carrier; when a port joins again the kernel runs
  // duplicate detection again on every address that has it.
  await a2.del();
  await a1.del();
  await addThenProbe(t, [r, n, pod1.name], () => a1.add(), { plan: (res) => hostPortProbes(res, 'on a bridge left empty, a new pod: ') });
  await a1.del();
  await aA.del();
});
