// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go): best effort and idempotent. A missing netns, link, rule or file is
// already done; every step runs even when an earlier one failed, and all failures are
// reported together.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { loadConf } from './conf.ts';
import { realDeps, type BridgeDeps } from './deps.ts';

export async function cmdDel(req: CniRequest, d: BridgeDeps = realDeps): Promise<void> {
  const conf = loadConf(req);
  const failures = new Failures();
  let ips: string[] | undefined;
  await failures.attempt(async () => {
    ips = await removeContainerVeth(d, req);
  });
  // After the device is gone (reference v1.2.0, plugins#666).
  const ipamType = conf.ipamType;
  if (ipamType) await failures.attempt(() => d.ipam.del(ipamType, req));
  if (conf.macspoofchk) await failures.attempt(() => d.netfilter.teardownMacSpoofCheck({ containerId: req.containerId, ifname: req.ifname }));
  // The reference skips this when the netns or the device is gone and so leaks the rules
  // (plugins#810); prevResult still names the addresses, and teardown finds the iptables
  // chain by name and the nft rules by comment even without them.
  if (conf.ipamType && conf.ipMasq) {
    const t = { network: conf.network, containerId: req.containerId, ifname: req.ifname, ips: ips ?? prevResultIps(req) };
    await failures.attempt(() => d.netfilter.teardownIpMasq(t));
  }
  failures.throwIfAny();
}

/**
 * Deletes CNI_IFNAME in the container (its host peer goes with it) and returns the global
 * addresses it had, or undefined when there was no netns or no such link.
 */
async function removeContainerVeth(d: BridgeDeps, req: CniRequest): Promise<string[] | undefined> {
  const ns = d.netns.containerIfExists(req.netns);
  if (ns === undefined) return undefined;
  try {
    const link = await d.kernel.getLinkByName(ns, req.ifname);
    if (!link) return undefined;
    const addrs = await d.kernel.listAddresses(ns, { index: link.index });
    await d.kernel.deleteLink(ns, link.index);
    return addrs.filter((a) => a.scope === 0).map((a) => `${a.address}/${a.prefixLen}`);
  } finally {
    ns.close();
  }
}

function prevResultIps(req: CniRequest): string[] {
  return (req.prevResult?.ips ?? []).map((ip) => ip.address);
}
