// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/ipvlan/ipvlan.go):
// the master, the addresses (the IPAM's, or chained without IPAM, prevResult's with its routes),
// then the ipvlan in the pod carrying them. Each step that leaves something registers its undo, so
// a failing ADD leaves no link and no allocation (the reference leaves the link when IPAM fails).
import type { CniRequest, Result } from '../../lib/cni-spec/index.ts';
import { addressPodLink, allocateAddresses, createPodLink, lowerLinkAdd } from '../lower-link.ts';
import { loadConf } from './conf.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req, { forAdd: true });
  return lowerLinkAdd('ipvlan', req, conf, async (at) => {
    // The addresses before the link (the reference makes the link first): an IPAM that refuses
    // its config answers with its own error, also on a kernel that cannot make ipvlan links.
    // Without IPAM, conf.ts refused an ADD whose prevResult has no addresses.
    const base = conf.ipamType === undefined ? (req.prevResult ?? { cniVersion: req.cniVersion }) : await allocateAddresses(conf.ipamType, req, at.undo);
    const link = await createPodLink(at, { kind: 'ipvlan', mode: conf.mode }, req, conf.mtu);
    // All addresses are on the ipvlan, interface 0 of the result; prevResult's interfaces go.
    const result: Result = {
      cniVersion: req.cniVersion,
      interfaces: [{ name: req.ifname, mac: link.mac, sandbox: req.netns }],
      ips: (base.ips ?? []).map((ip) => ({ ...ip, interface: 0 })),
      routes: base.routes ?? [],
    };
    await addressPodLink(at.pod, req.ifname, result);
    // The reference puts the config's dns in the result, dropping the IPAM's or prevResult's.
    if (conf.dns) result.dns = conf.dns;
    return result;
  });
}
