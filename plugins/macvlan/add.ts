// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/macvlan/macvlan.go):
// the master and its MTU, the macvlan in the pod, then either the IPAM's addresses on it or,
// without IPAM, just the link up. Each step that leaves something registers its undo, so a
// failing ADD leaves no link and no allocation.
import type { CniRequest, Result } from '../../lib/cni-spec/index.ts';
import { parseMac, setLinkUp, type Netns } from '../../lib/linux/index.ts';
import { addressPodLink, allocateAddresses, createPodLink, lowerLinkAdd } from '../lower-link.ts';
import { loadConf } from './conf.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req, { forAdd: true });
  return lowerLinkAdd('macvlan', req, conf, async (at) => {
    const mac = conf.mac === undefined ? undefined : parseMac(conf.mac);
    const spec = { kind: 'macvlan', mode: conf.mode, ...(mac && { mac }), ...(conf.bcQueueLen && { bcQueueLen: conf.bcQueueLen }) } as const;
    const link = await createPodLink(at, spec, req, conf.mtu);
    const result: Result = { cniVersion: req.cniVersion, interfaces: [{ name: req.ifname, mac: link.mac, sandbox: req.netns }] };
    if (conf.ipamType === undefined) {
      await upOnly(at.pod, req.ifname, link.index);
    } else {
      const ipam = await allocateAddresses(conf.ipamType, req, at.undo);
      // All addresses are on the macvlan, interface 0 of the result.
      result.ips = ipam.ips.map((ip) => ({ ...ip, interface: 0 }));
      result.routes = ipam.routes ?? [];
      await addressPodLink(at.pod, req.ifname, result);
    }
    // The reference puts the config's dns in the result, dropping the IPAM's.
    if (conf.dns) result.dns = conf.dns;
    return result;
  });
}

async function upOnly(pod: Netns, ifname: string, index: number): Promise<void> {
  try {
    await setLinkUp(pod, index);
  } catch (err) {
    throw new Error(`failed to set ${JSON.stringify(ifname)} UP: ${(err as Error).message}`, { cause: err });
  }
}
