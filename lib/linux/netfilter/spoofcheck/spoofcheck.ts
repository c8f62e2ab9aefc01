// MAC spoof check for the bridge plugin (macspoofchk, reference https://github.com/containernetworking/plugins/blob/v1.9.0/pkg/link/spoofcheck.go): frames entering the
// bridge from the host veth must carry the container's MAC, else they are dropped.
import { hasNft } from '../core/backend.ts';
import { withNetfilterLock } from '../core/lock.ts';
import { SPOOF_BASE_CHAIN, spoofNames, spoofNetworkTag, SPOOF_TABLE } from '../core/names.ts';
import { readPlanApply } from '../core/nft.ts';
import { planSpoofGc, planSpoofSetup, planSpoofTeardown } from './spoofcheck-plan.ts';
import { normalizeMac, validateIfnameToken, validateNetworkToken, validateSpoofRef } from '../core/validate.ts';

export interface SpoofRef {
  /** the network name: only our tag in the attachment's chain carries it */
  readonly network: string;
  readonly containerId: string;
  /** the container-side interface (CNI_IFNAME); part of the rule names */
  readonly ifname: string;
}

export interface SpoofTarget {
  readonly network: string;
  readonly containerId: string;
  /** the container-side interface (CNI_IFNAME); part of the rule names */
  readonly ifname: string;
  /** the host-side veth the frames arrive on */
  readonly hostIfname: string;
  /** the container interface's MAC */
  readonly mac: string;
}

export async function setupMacSpoofCheck(t: SpoofTarget): Promise<void> {
  validateNetworkToken(t.network);
  validateSpoofRef(t.containerId, t.ifname);
  validateIfnameToken(t.hostIfname); // only inside a quoted string
  const names = spoofNames(t.containerId, t.ifname);
  const mac = normalizeMac(t.mac);
  const tag = spoofNetworkTag(t.network);
  await withNetfilterLock(() =>
    readPlanApply(['chain', 'bridge', SPOOF_TABLE, SPOOF_BASE_CHAIN], (l) => planSpoofSetup(l, names, { hostIfname: t.hostIfname, mac }, tag)),
  );
}

/** Removes the attachment's rules and chains (our tag with them); the table and PREROUTING stay, as with the reference. */
export async function teardownMacSpoofCheck(t: SpoofRef): Promise<void> {
  validateNetworkToken(t.network);
  validateSpoofRef(t.containerId, t.ifname);
  const names = spoofNames(t.containerId, t.ifname);
  await withNetfilterLock(() => readPlanApply(['table', 'bridge', SPOOF_TABLE], (l) => planSpoofTeardown(l, names)));
}

/**
 * GC: the spoof-check chains of this network's attachments not in `valid`, as far as this
 * network's tag proves them its own (spoofcheck-plan.ts, planSpoofGc). Without nft there
 * can be none.
 */
export async function gcMacSpoofCheck(network: string, valid: readonly { containerID: string; ifname: string }[]): Promise<void> {
  validateNetworkToken(network);
  if (!hasNft()) return;
  const keep = new Set(valid.map((a) => spoofNames(a.containerID, a.ifname).comment));
  await withNetfilterLock(() => readPlanApply(['table', 'bridge', SPOOF_TABLE], (l) => planSpoofGc(l, spoofNetworkTag(network), keep)));
}
