// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go): best effort and idempotent. A missing netns, link, rule or file is
// already done; every step runs even when an earlier one failed, and all failures are
// reported together, in the order of the steps.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import type { Netns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { realDeps, type BridgeDeps } from './deps.ts';

export async function cmdDel(req: CniRequest, d: BridgeDeps = realDeps): Promise<void> {
  const conf = loadConf(req);
  const failures = new Failures();
  let pod: Netns | undefined;
  try {
    let link: PodLink | undefined;
    await failures.attempt(async () => {
      pod = d.netns.containerIfExists(req.netns);
      link = pod && (await findContainerLink(d, pod, req.ifname));
    });
    // The masquerade rules go while the kernel removes the veth (that blocks this thread for a
    // grace period): iptables-restore runs meanwhile. The reference skips this when the netns
    // or the device is gone and so leaks the rules (plugins#810); prevResult still names the
    // addresses, and teardown finds the iptables chain by name and the nft rules by comment
    // even without them.
    const masq =
      conf.ipamType && conf.ipMasq
        ? d.netfilter.teardownIpMasq({ network: conf.network, containerId: req.containerId, ifname: req.ifname, ips: link?.ips ?? prevResultIps(req) })
        : undefined;
    // Its failure is reported in its turn, after the steps before it.
    masq?.catch(() => undefined);
    // Netlink requests block this thread, and the teardown starts its tools only once its own
    // promises run: one turn of the event loop lets them start before the veth's removal blocks.
    if (masq) await nextTurn();
    const [ns, index] = [pod, link?.index];
    if (ns && index !== undefined) await failures.attempt(() => d.kernel.deleteLink(ns, index));
    // After the device is gone (reference v1.2.0, plugins#666).
    const ipamType = conf.ipamType;
    if (ipamType) await failures.attempt(() => d.ipam.del(ipamType, req));
    if (conf.macspoofchk)
      await failures.attempt(() => d.netfilter.teardownMacSpoofCheck({ network: conf.network, containerId: req.containerId, ifname: req.ifname }));
    if (masq) await failures.attempt(() => masq);
  } finally {
    pod?.close();
  }
  failures.throwIfAny();
}

interface PodLink {
  readonly index: number;
  /** its global addresses, as CIDRs */
  readonly ips: string[];
}

/** CNI_IFNAME in the container with the global addresses it has, or undefined when there is no such link. */
async function findContainerLink(d: BridgeDeps, pod: Netns, ifname: string): Promise<PodLink | undefined> {
  const link = await d.kernel.getLinkByName(pod, ifname);
  if (!link) return undefined;
  const addrs = await d.kernel.listAddresses(pod, { index: link.index });
  return { index: link.index, ips: addrs.filter((a) => a.scope === 0).map((a) => `${a.address}/${a.prefixLen}`) };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function prevResultIps(req: CniRequest): string[] {
  return (req.prevResult?.ips ?? []).map((ip) => ip.address);
}
