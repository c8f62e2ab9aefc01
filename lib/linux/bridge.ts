// Bridges and bridge ports: creation with vlan_filtering, port options (hairpin, isolated).
import { isNetlinkError } from './netlink-error.ts';
import { encodeBridgePortOptions, encodeNewBridge, type BridgePortOptions, type NewBridge } from './link-msg.ts';
import type { Netns } from './netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL, RTM_NEWLINK, rtnlRequest } from './nl-request.ts';

export type { BridgePortOptions, NewBridge } from './link-msg.ts';

/**
 * Creates the bridge; false when a link of that name already exists (of whatever kind:
 * callers check the kind). An existing bridge keeps its MTU and vlan_filtering.
 */
export async function createBridge(ns: Netns, b: NewBridge): Promise<boolean> {
  try {
    await rtnlRequest(ns, RTM_NEWLINK, encodeNewBridge(b), NLM_F_CREATE | NLM_F_EXCL);
    return true;
  } catch (err) {
    if (isNetlinkError(err, 'EEXIST')) return false;
    throw err;
  }
}

/** Sets bridge-port flags on an enslaved link (EOPNOTSUPP when its master is not a bridge). */
export async function setBridgePortOptions(ns: Netns, index: number, o: BridgePortOptions): Promise<void> {
  if (o.hairpin === undefined && o.isolated === undefined) return;
  await rtnlRequest(ns, RTM_NEWLINK, encodeBridgePortOptions(index, o));
}
