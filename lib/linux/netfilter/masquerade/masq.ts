// ipMasq for the bridge plugin: per-container masquerading of traffic that leaves the
// container's subnet, with the reference's iptables or nftables layout
// (https://github.com/containernetworking/plugins/blob/v1.9.0/pkg/ip/ipmasq_iptables_linux.go, https://github.com/containernetworking/plugins/blob/v1.9.0/pkg/ip/ipmasq_nftables_linux.go).
// Teardown and GC always clean both backends: the pod may have been set up by another
// version or configuration, or by the Go plugin.
import { CniError, ErrorCode } from '../../../cni-spec/errors.ts';
import { goQuote } from '../../../cni-spec/go-json.ts';
import { defaultRuleBackend, hasIptables, hasNft, type RuleBackend } from '../core/backend.ts';
import { withNetfilterLock } from '../core/lock.ts';
import { gcMasqIptables, setupMasqIptables, teardownMasqIptables } from './masq-iptables.ts';
import type { Family } from './masq-iptables-plan.ts';
import { gcMasqNft, setupMasqNft, teardownMasqNft } from './masq-nft.ts';
import { settleAll } from '../core/settle.ts';
import { parseMasqAddrs, validateContainerIdToken, validateIfnameToken, validateIptablesComment, validateNetworkToken } from '../core/validate.ts';

export type MasqBackend = RuleBackend;

export interface MasqTarget {
  readonly network: string;
  readonly containerId: string;
  readonly ifname: string;
  /** container CIDRs as in the result: "10.22.0.5/16", "fd00::5/64" */
  readonly ips: readonly string[];
}

/** The config's ipMasqBackend; unset: the default of core/backend.ts. */
export function resolveMasqBackend(requested: string | undefined): MasqBackend {
  if (requested === 'iptables' || requested === 'nftables') return requested;
  if (requested !== undefined) throw new CniError(ErrorCode.InvalidNetworkConfig, `unknown ipmasq backend ${goQuote(requested)}`);
  return defaultRuleBackend();
}

function validateTarget(t: MasqTarget): void {
  validateNetworkToken(t.network);
  validateContainerIdToken(t.containerId);
  validateIfnameToken(t.ifname);
}

export async function setupIpMasq(backend: MasqBackend, t: MasqTarget): Promise<void> {
  validateTarget(t);
  const addrs = parseMasqAddrs(t.ips);
  if (addrs.length === 0) return;
  if (backend === 'iptables') {
    validateIptablesComment(t.network, t.containerId);
    await withNetfilterLock(() => setupMasqIptables(t.network, t.containerId, addrs));
  } else {
    await withNetfilterLock(() => setupMasqNft(t.network, t.ifname, t.containerId, addrs));
  }
}

/**
 * Removes what either backend set up for this attachment; what is already gone is fine.
 * iptables: the jumps of `ips` and the chain once nothing jumps to it; with no `ips` (a DEL
 * whose container netns is already gone) the chain and every jump to it, in both families.
 * nftables: every rule whose comment names this network, ifname and container id.
 */
export async function teardownIpMasq(t: MasqTarget): Promise<void> {
  validateTarget(t);
  const addrs = parseMasqAddrs(t.ips);
  const wanted: Family[] = addrs.length === 0 ? [4, 6] : ([4, 6] as const).filter((f) => addrs.some((a) => a.family === f));
  // A backend whose tools are not installed cannot hold rules we could remove: skip it.
  const families = wanted.filter(hasIptables);
  await withNetfilterLock(() =>
    settleAll([
      teardownMasqIptables(t.network, t.containerId, addrs, families),
      hasNft() ? teardownMasqNft(t.network, t.ifname, t.containerId) : Promise.resolve(),
    ]),
  );
}

/** GC: drops the masquerade state of `network` that belongs to no valid attachment. */
export async function gcIpMasq(network: string, valid: readonly { containerID: string; ifname: string }[]): Promise<void> {
  validateNetworkToken(network);
  const validIds = new Set(valid.map((a) => a.containerID));
  await withNetfilterLock(() =>
    settleAll([gcMasqIptables(network, validIds, ([4, 6] as const).filter(hasIptables)), hasNft() ? gcMasqNft(network, valid) : Promise.resolve()]),
  );
}
