// The gateway link's IPv6 addresses made usable before ADD returns. A tentative address (IPv6
// duplicate address detection, 1-2 s) is neither answered for in neighbour discovery nor used
// as a source: a pod cannot resolve its gateway, and the link cannot solicit a pod for
// forwarded traffic without a usable link-local address (docs/architecture.md#a-pod-is-reachable-when-add-returns).
import { cidrBytes, formatIpBytes } from '../../lib/cni-spec/index.ts';
import { settleIpv6Addresses, type LinkInfo, type Netns } from '../../lib/linux/index.ts';
import type { GatewayAddr } from './gateway-plan.ts';

const isLinkLocal = (address: string): boolean => /^fe[89ab]/i.test(address);

/**
 * Waits only when one of the link's IPv6 gateways or link-local addresses is still tentative:
 * ours are added without DAD on a link without DAD, so this is a single address dump unless
 * another writer (the reference plugin, an administrator, net.ipv6.conf.all.accept_dad=1) put
 * them there. Run once the port is up: DAD does not progress on a link without carrier.
 */
export async function settleGateways(host: Netns, link: LinkInfo, gateways: readonly GatewayAddr[]): Promise<void> {
  const v6 = new Set<string>();
  for (const g of gateways) {
    const c = g.family === 6 ? cidrBytes(g.cidr) : undefined;
    if (c) v6.add(formatIpBytes(c.bytes));
  }
  if (v6.size === 0) return;
  try {
    await settleIpv6Addresses(host, link.index, link.name, { only: (s) => v6.has(s.address) || isLinkLocal(s.address) });
  } catch (err) {
    throw new Error(`failed to settle gateway addresses on ${JSON.stringify(link.name)}: ${(err as Error).message}`, { cause: err });
  }
}
