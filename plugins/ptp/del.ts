// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/main/ptp/ptp.go):
// best effort and idempotent. The container end goes (the host end, its gateway address and
// host routes go with it), then the allocation, then the masquerade rules. Every step runs;
// failures are reported together. Unlike the reference, the masquerade rules go even when the
// netns or the interface is already gone (the iptables chain is found by name and the nft rules
// by comment), as our bridge does (plugins#810), and the addresses un-masqueraded are
// prevResult's when there is one: a pod with NET_ADMIN can change those on its interface.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamDel } from '../../lib/ipam/index.ts';
import { deleteLink, getLinkByName, listAddresses, openContainerNetnsIfExists, teardownIpMasq, type Netns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const failures = new Failures();
  let pod: Netns | undefined;
  // What ADD masqueraded; without a prevResult (a runtime that kept no result), the interface's.
  let ips = req.prevResult?.ips?.map((ip) => ip.address);
  const readIface = ips === undefined && conf.ipMasq;
  try {
    await failures.attempt(async () => {
      pod = openContainerNetnsIfExists(req.netns);
      const link = pod && (await getLinkByName(pod, req.ifname));
      if (!pod || !link) return;
      if (readIface) {
        const addrs = await listAddresses(pod, { index: link.index });
        ips = addrs.filter((a) => a.scope === 0).map((a) => `${a.address}/${a.prefixLen}`);
      }
      await deleteLink(pod, link.index);
    });
    await failures.attempt(() => ipamDel(conf.ipamType, req));
    if (conf.ipMasq) {
      const t = { network: conf.network, containerId: req.containerId, ifname: req.ifname, ips: ips ?? [] };
      await failures.attempt(() => teardownIpMasq(t));
    }
  } finally {
    pod?.close();
  }
  failures.throwIfAny();
}
