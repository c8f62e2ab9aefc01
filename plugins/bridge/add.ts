// ADD (plugins.md §1.2). Every step that leaves something behind registers its undo first,
// so a failing ADD leaves no veth, no rules and no IP allocated (DESIGN.md §6).
import { UndoStack, type CniRequest, type Interface, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import {
  getLinkByIndex,
  Netns,
  openContainerNetns,
  resolveMasqBackend,
  setLinkUp,
  setupIpMasq,
  setupMacSpoofCheck,
  teardownIpMasq,
  teardownMacSpoofCheck,
  waitOperUp,
  type LinkInfo,
  type MasqBackend,
  type VethPair,
} from '../../lib/linux/index.ts';
import { ensureBridge } from './bridge-setup.ts';
import { loadConf, type BridgeConf } from './conf.ts';
import { configureContainer } from './container-setup.ts';
import { planGateways } from './gateway-plan.ts';
import { setupGateways } from './gateway-setup.ts';
import { setupPort } from './port-setup.ts';
import { assembleResult } from './result.ts';
import { ensureVlanGateway } from './vlan-gateway.ts';

interface Add {
  readonly req: CniRequest;
  readonly conf: BridgeConf;
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
}

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req, { forAdd: true });
  const masq = conf.ipMasq && conf.ipamType ? resolveMasqBackend(conf.ipMasqBackend) : undefined;
  const pod = openContainerNetns(req.netns);
  const host = Netns.host();
  const a: Add = { req, conf, masq, host, pod, undo: new UndoStack('bridge') };
  try {
    const bridge = await ensureBridge(host, conf);
    const pair = await setupPort({ host, container: pod }, bridge, portSpec(a), a.undo);
    if (conf.macspoofchk) await setupSpoofCheck(a, pair);
    const l3 = conf.ipamType ? await setupL3(a, bridge, pair) : await setupL2(a, pair);
    if (!conf.disableContainerInterface) await waitOperUp(host, pair.host.index);
    return await buildResult(a, bridge, pair, l3);
  } catch (err) {
    await a.undo.unwind();
    throw err;
  } finally {
    pod.close();
    host.close();
  }
}

function portSpec({ req, conf }: Add) {
  return { ifname: req.ifname, mtu: conf.mtu, mac: conf.mac, hairpin: conf.hairpinMode, isolated: conf.portIsolation, vlans: conf.portVlans };
}

async function setupSpoofCheck({ req, undo }: Add, pair: VethPair): Promise<void> {
  const ref = { containerId: req.containerId, ifname: req.ifname };
  undo.push('macspoofchk rules', () => teardownMacSpoofCheck(ref));
  await setupMacSpoofCheck({ ...ref, hostIfname: pair.host.name, mac: pair.container.mac });
}

async function setupL2({ conf, pod }: Add, pair: VethPair): Promise<L3 | undefined> {
  if (!conf.disableContainerInterface) await setLinkUp(pod, pair.container.index);
  return undefined;
}

async function setupL3(a: Add, bridge: LinkInfo, pair: VethPair): Promise<L3> {
  const { req, conf, host, pod, undo } = a;
  const ipam = await ipamAdd(req);
  undo.push('IPAM allocation', () => ipamDel(req));
  if (!ipam.ips || ipam.ips.length === 0) throw new Error('IPAM plugin returned missing IP config');
  const plan = planGateways(ipam.ips, ipam.routes ?? [], conf);
  const l3: L3 = { ips: plan.ips, routes: plan.routes, dns: ipam.dns };
  const draft = assembleResult({ cniVersion: req.cniVersion, bridge: { name: bridge.name }, hostVeth: { name: pair.host.name }, container: { name: req.ifname }, ips: plan.ips, routes: plan.routes });
  await configureContainer(pod, req.ifname, draft, conf.enableDad);
  if (conf.isGateway && plan.gateways.length > 0) {
    const target = conf.vlan !== 0 ? await ensureVlanGateway(host, bridge, conf.vlan, conf.preserveDefaultVlan) : bridge;
    if (target !== bridge) l3.vlanGateway = { name: target.name, mac: target.mac };
    await setupGateways(host, target, { before: target.mac, gateways: plan.gateways, forceAddress: conf.forceAddress });
  }
  if (a.masq) {
    const t = { network: conf.network, containerId: req.containerId, ifname: req.ifname, ips: plan.ips.map((ip) => ip.address) };
    undo.push('ipMasq rules', () => teardownIpMasq(t));
    await setupIpMasq(a.masq, t);
  }
  return l3;
}

/** MACs of the bridge and the host veth are read again: both can change while ports join. */
async function buildResult({ req, conf, host }: Add, bridge: LinkInfo, pair: VethPair, l3: L3 | undefined): Promise<Result> {
  const [br, hostVeth] = await Promise.all([getLinkByIndex(host, bridge.index), getLinkByIndex(host, pair.host.index)]);
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
