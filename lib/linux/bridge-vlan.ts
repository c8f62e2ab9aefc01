// VLAN entries of a bridge port (the host end of a veth), in one request each way.
import { encodeBridgeVlans, type VlanRun } from './link-msg.ts';
import type { Netns } from './netns.ts';
import { RTM_DELLINK, RTM_SETLINK, rtnlRequest } from './nl-request.ts';

export type { VlanRun } from './link-msg.ts';

export const VLAN_MIN = 1;
export const VLAN_MAX = 4094;

export interface PortVlans {
  /** VID for untagged traffic both ways (PVID + egress untagged) */
  native?: number;
  /** VIDs passed tagged */
  tagged: readonly number[];
}

/**
 * The native VID first, then the tagged VIDs folded into ranges (sorted, deduped): one
 * entry per run instead of one request per VID (the reference sends up to 4094 requests).
 * A tagged entry for the native VID comes later and wins, as it does in the reference.
 */
export function planVlanRuns(p: PortVlans): VlanRun[] {
  const runs: VlanRun[] = [];
  if (p.native !== undefined) runs.push({ vid: p.native, pvid: true, untagged: true });
  const vids = [...new Set(p.tagged)].sort((a, b) => a - b);
  for (let i = 0; i < vids.length;) {
    let j = i;
    while (j + 1 < vids.length && vids[j + 1] === (vids[j] ?? 0) + 1) j++;
    const vid = vids[i] ?? 0;
    const last = vids[j] ?? vid;
    runs.push(last === vid ? { vid } : { vid, last });
    i = j + 1;
  }
  return runs;
}

/** Adds (or updates the flags of) the port's entries; the kernel applies them in order. */
export async function addPortVlans(ns: Netns, index: number, runs: readonly VlanRun[]): Promise<void> {
  if (runs.length === 0) return;
  await rtnlRequest(ns, RTM_SETLINK, encodeBridgeVlans(index, runs));
}

/**
 * Removes every VLAN entry of the port, including the bridge's default PVID the kernel gave
 * it on enslaving. The kernel skips VIDs the port does not have, so one range covers all.
 */
export async function clearPortVlans(ns: Netns, index: number): Promise<void> {
  await rtnlRequest(ns, RTM_DELLINK, encodeBridgeVlans(index, [{ vid: VLAN_MIN, last: VLAN_MAX }]));
}
