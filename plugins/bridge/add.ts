// ADD, as the reference's cmdAdd (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go). Every step that leaves something behind registers its undo first,
// so a failing ADD leaves no veth, no rules and no IP allocated (docs/architecture.md#conventions).
import { UndoStack, type CniRequest, type Interface, type Result } from '../../lib/cni-spec/index.ts';
import type { LinkInfo, MasqBackend, Netns, VethPair } from '../../lib/linux/index.ts';
import { loadConf, type BridgeConf } from './conf.ts';
import { realDeps, type BridgeDeps } from './deps.ts';
import { planGateways, type GatewayAddr } from './gateway-plan.ts';
import { assembleResult } from './result.ts';

interface Add {
  readonly req: CniRequest;
  readonly conf: BridgeConf;
  readonly d: BridgeDeps;
  readonly masq: MasqBackend | undefined;
  readonly host: Netns;
  readonly pod: Netns;
  readonly undo: UndoStack;
}

/** What the L3 step adds to the result. */
interface L3 {
  ips: Result['ips'];
  routes: Result['routes'];
  dns: Result['dns'];
  vlanGateway?: Interface;
  /** the link that carries the gateways, and them: settled once the port is up */
  gatewaysOn?: { link: LinkInfo; gateways: GatewayAddr[] };
}

export async function cmdAdd(req: CniRequest, d: BridgeDeps = realDeps): Promise<Result> {
  const conf = loadConf(req, { forAdd: true });
  const masq = conf.ipMasq && conf.ipamType ? d.netfilter.resolveMasqBackend(conf.ipMasqBackend) : undefined;
  const pod = d.netns.container(req);
  const host = d.netns.host();
  const a: Add = { req, conf, d, masq, host, pod, undo: new UndoStack('bridge') };
  try {
    const bridge = await d.kernel.ensureBridge(host, conf);
    const pair = await setupPort(a, bridge);
    if (conf.macspoofchk) await setupSpoofCheck(a, pair);
    const l3 = conf.ipamType ? await setupL3(a, conf.ipamType, bridge, pair) : await setupL2(a, pair);
    if (!conf.disableContainerInterface) await d.kernel.waitOperUp(host, pair.host.index);
    if (l3?.gatewaysOn) await d.kernel.settleGateways(host, l3.gatewaysOn.link, l3.gatewaysOn.gateways);
    return await buildResult(a, bridge, pair, l3);
  } catch (err) {
    await a.undo.unwind();
    throw err;
  } finally {
    pod.close();
    host.close();
  }
}

/** The veth pair, its removal registered before the port is configured. */
async function setupPort({ req, conf, d, host, pod, undo }: Add, bridge: LinkInfo): Promise<VethPair> {
  const spec = { ifname: req.ifname, mtu: conf.mtu, mac: conf.mac, hairpin: conf.hairpinMode, isolated: conf.portIsolation, vlans: conf.portVlans };
  const pair = await d.kernel.createPort({ host, container: pod }, bridge, spec);
  undo.push(`veth ${pair.host.name}`, () => d.kernel.deleteLink(host, pair.host.index));
  await d.kernel.configurePort(host, pair.host, spec);
  return pair;
}

async function setupSpoofCheck({ req, d, undo }: Add, pair: VethPair): Promise<void> {
  const ref = { containerId: req.containerId, ifname: req.ifname };
  undo.push('macspoofchk rules', () => d.netfilter.teardownMacSpoofCheck(ref));
  await d.netfilter.setupMacSpoofCheck({ ...ref, hostIfname: pair.host.name, mac: pair.container.mac });
}

async function setupL2({ conf, d, pod }: Add, pair: VethPair): Promise<L3 | undefined> {
  if (!conf.disableContainerInterface) await d.kernel.setLinkUp(pod, pair.container.index);
  return undefined;
}

async function setupL3(a: Add, ipamType: string, bridge: LinkInfo, pair: VethPair): Promise<L3> {
  const { req, conf, d, host, pod, undo } = a;
  const ipam = await d.ipam.add(ipamType, req);
  undo.push('IPAM allocation', () => d.ipam.del(ipamType, req));
  if (!ipam.ips || ipam.ips.length === 0) throw new Error('IPAM plugin returned missing IP config');
  const plan = planGateways(ipam.ips, ipam.routes ?? [], conf);
  const l3: L3 = { ips: plan.ips, routes: plan.routes, dns: ipam.dns };
  const draft = assembleResult({
    cniVersion: req.cniVersion,
    bridge: { name: bridge.name },
    hostVeth: { name: pair.host.name },
    container: { name: req.ifname },
    ips: plan.ips,
    routes: plan.routes,
  });
  await d.kernel.configureContainer(pod, req.ifname, draft, conf.enableDad);
  if (conf.isGateway && plan.gateways.length > 0) {
    const target = conf.vlan !== 0 ? await d.kernel.ensureVlanGateway(host, bridge, conf.vlan, conf.preserveDefaultVlan) : bridge;
    if (target !== bridge) l3.vlanGateway = { name: target.name, mac: target.mac };
    await d.kernel.setupGateways(host, target, { before: target.mac, gateways: plan.gateways, forceAddress: conf.forceAddress });
    l3.gatewaysOn = { link: target, gateways: plan.gateways };
  }
  if (a.masq) {
    const t = { network: conf.network, containerId: req.containerId, ifname: req.ifname, ips: plan.ips.map((ip) => ip.address) };
    undo.push('ipMasq rules', () => d.netfilter.teardownIpMasq(t));
    await d.netfilter.setupIpMasq(a.masq, t);
  }
  return l3;
}

/** MACs of the bridge and the host veth are read again: both can change while ports join. */
async function buildResult({ req, conf, d, host }: Add, bridge: LinkInfo, pair: VethPair, l3: L3 | undefined): Promise<Result> {
  const [br, hostVeth] = await Promise.all([d.kernel.getLinkByIndex(host, bridge.index), d.kernel.getLinkByIndex(host, pair.host.index)]);
  return assembleResult({
    cniVersion: req.cniVersion,
    bridge: { name: bridge.name, mac: (br ?? bridge).mac },
    hostVeth: { name: pair.host.name, mac: (hostVeth ?? pair.host).mac },
    container: { name: req.ifname, mac: pair.container.mac, sandbox: req.netns },
    vlanGateway: l3?.vlanGateway,
    ...(l3?.ips && { ips: l3.ips }),
    ...(l3?.routes && { routes: l3.routes }),
    ipamDns: l3?.dns,
    dnsOverride: conf.dns,
  });
}
