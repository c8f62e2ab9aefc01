// VLAN settings of a bridge port, from the config to the kernel's entries. Pure.
import { planVlanRuns, VLAN_MAX, type VlanRun } from '../../lib/linux/index.ts';

export interface TrunkItem {
  id?: number | undefined;
  minID?: number | undefined;
  maxID?: number | undefined;
}

export interface Problem {
  field: string;
  msg: string;
}

const inRange = (v: number): boolean => v > 0 && v <= VLAN_MAX;

/**
 * The trunk's VIDs, deduped and sorted, or the reference's error for the first bad item.
 * An item may give both a range and an id; an item with neither adds nothing.
 */
export function collectVlanTrunk(items: readonly TrunkItem[]): { vids: number[] } | Problem {
  const vids = new Set<number>();
  for (const [i, item] of items.entries()) {
    const at = `vlanTrunk[${i}]`;
    const { minID, maxID, id } = item;
    if (minID !== undefined && maxID !== undefined) {
      if (!inRange(minID)) return { field: `${at}.minID`, msg: 'incorrect trunk minID parameter' };
      if (!inRange(maxID)) return { field: `${at}.maxID`, msg: 'incorrect trunk maxID parameter' };
      if (maxID < minID) return { field: at, msg: 'minID is greater than maxID in trunk parameter' };
      for (let v = minID; v <= maxID; v++) vids.add(v);
    } else if (maxID !== undefined) {
      return { field: `${at}.minID`, msg: 'minID and maxID should be configured simultaneously, minID is missing' };
    } else if (minID !== undefined) {
      return { field: `${at}.maxID`, msg: 'minID and maxID should be configured simultaneously, maxID is missing' };
    }
    if (id !== undefined) {
      if (!inRange(id)) return { field: `${at}.id`, msg: 'incorrect trunk id parameter' };
      vids.add(id);
    }
  }
  return { vids: [...vids].sort((a, b) => a - b) };
}

export interface PortVlanPlan {
  /** remove every VLAN entry the port got on enslaving (the bridge's default PVID) first */
  clear: boolean;
  runs: VlanRun[];
}

/**
 * What the host end of the veth gets (reference setupVeth, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go): nothing unless a VLAN or a
 * trunk is configured; then the old entries go unless preserveDefaultVlan, `vlan` becomes
 * the native VLAN (PVID, egress untagged) and the trunk VIDs are tagged. A trunk without
 * `vlan` keeps VID 1 as its native VLAN (reference v1.8.0).
 */
export function planPortVlans(vlan: number, trunk: readonly number[], preserveDefaultVlan: boolean): PortVlanPlan | undefined {
  if (vlan === 0 && trunk.length === 0) return undefined;
  const native = vlan !== 0 ? vlan : 1;
  return { clear: !preserveDefaultVlan, runs: planVlanRuns({ native, tagged: trunk }) };
}
