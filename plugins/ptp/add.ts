// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/main/ptp/ptp.go):
// IPAM, forwarding, the veth pair, the container side, the host side, masquerade. Every step
// that leaves something behind registers its undo, so a failing ADD leaves no veth, no rules
// and no allocation.
import { UndoStack, type CniRequest, type IPConfig, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import {
  deleteLink,
  getLinkByIndex,
  Netns,
  openContainerNetns,
  resolveMasqBackend,
  setupIpMasq,
  settleIpv6Addresses,
  setupVeth,
  teardownIpMasq,
  waitOperUp,
} from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { configureContainerSide } from './container-side.ts';
import { configureHostSide, enableForwarding, skipHostDad } from './host-side.ts';
import { planAddrs } from './route-plan.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req, { forAdd: true });
  const masq = conf.ipMasq ? resolveMasqBackend(conf.ipMasqBackend) : undefined;
  const pod = openContainerNetns(req);
  const host = Netns.host();
  const undo = new UndoStack('ptp');
  try {
    const ipam = await ipamAdd(conf.ipamType, req);
    undo.push('IPAM allocation', () => ipamDel(conf.ipamType, req));
    if (!ipam.ips || ipam.ips.length === 0) throw new Error('IPAM plugin returned missing IP config');
    // All addresses go on the container end, interface 1 of the result.
    const ips: IPConfig[] = ipam.ips.map((ip) => ({ ...ip, interface: 1 }));
    const addrs = planAddrs(ips);
    enableForwarding(host, addrs);

    const pair = await setupVeth(host, pod, { ifname: req.ifname, ...(conf.mtu && { mtu: conf.mtu }) });
    undo.push(`veth ${pair.host.name}`, () => deleteLink(host, pair.host.index));
    const interfaces = [
      { name: pair.host.name, mac: pair.host.mac },
      { name: req.ifname, mac: pair.container.mac, sandbox: req.netns },
    ];
    const routes = ipam.routes ?? [];
    skipHostDad(host, pair.host, addrs);
    await configureContainerSide(pod, pair.container, { cniVersion: req.cniVersion, interfaces, ips, routes }, addrs);
    await configureHostSide(host, pair.host, addrs);
    if (masq) {
      const t = { network: conf.network, containerId: req.containerId, ifname: req.ifname, ips: ips.map((ip) => ip.address) };
      undo.push('ipMasq rules', () => teardownIpMasq(t));
      await setupIpMasq(masq, t);
    }
    await waitOperUp(host, pair.host.index);
    // One address dump when nothing is tentative; a wait only if another writer turned DAD back on.
    if (addrs.some((a) => a.hostBits === 128)) await settleIpv6Addresses(host, pair.host.index, pair.host.name, { only: (a) => /^fe[89ab]/i.test(a.address) });
    // The host end's MAC can change when it comes up in the host netns; read it again.
    const hostVeth = await getLinkByIndex(host, pair.host.index);
    if (hostVeth && interfaces[0]) interfaces[0].mac = hostVeth.mac;
    const dns = conf.dns ?? ipam.dns;
    return { cniVersion: req.cniVersion, interfaces, ips, routes, ...(dns && { dns }) };
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
    host.close();
  }
}
