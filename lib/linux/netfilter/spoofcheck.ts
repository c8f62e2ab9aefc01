// MAC spoof check for the bridge plugin (macspoofchk, reference https://github.com/containernetworking/plugins/blob/v1.9.0/pkg/link/spoofcheck.go): frames entering the
// bridge from the host veth must carry the container's MAC, else they are dropped.
import { withNetfilterLock } from './lock.ts';
import { SPOOF_BASE_CHAIN, spoofNames, SPOOF_TABLE } from './names.ts';
import { readPlanApply } from './nft.ts';
import { planSpoofSetup, planSpoofTeardown } from './spoofcheck-plan.ts';
import { normalizeMac, validateIfnameToken, validateSpoofRef } from './validate.ts';

export interface SpoofTarget {
  readonly containerId: string;
  /** the container-side interface (CNI_IFNAME); part of the rule names */
  readonly ifname: string;
  /** the host-side veth the frames arrive on */
  readonly hostIfname: string;
  /** the container interface's MAC */
  readonly mac: string;
}

export async function setupMacSpoofCheck(t: SpoofTarget): Promise<void> {
  validateSpoofRef(t.containerId, t.ifname);
  validateIfnameToken(t.hostIfname); // only inside a quoted string
  const names = spoofNames(t.containerId, t.ifname);
  const mac = normalizeMac(t.mac);
  await withNetfilterLock(() => readPlanApply(['chain', 'bridge', SPOOF_TABLE, SPOOF_BASE_CHAIN], (l) => planSpoofSetup(l, names, t.hostIfname, mac)));
}

/** Removes the attachment's rules and chains; the table and PREROUTING stay, as with the reference. */
export async function teardownMacSpoofCheck(t: { readonly containerId: string; readonly ifname: string }): Promise<void> {
  validateSpoofRef(t.containerId, t.ifname);
  const names = spoofNames(t.containerId, t.ifname);
  await withNetfilterLock(() => readPlanApply(['table', 'bridge', SPOOF_TABLE], (l) => planSpoofTeardown(l, names)));
}
