// What the tap device is made with: pure, so the choices below are tested without root.
//
// The reference makes the device one of two ways, and they differ
// (https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/tap/tap.go, createLink):
// - with both `owner` and `group` set (and no `selinuxContext`), vishvananda/netlink v1.3.1's
//   LinkAdd(&Tuntap{Flags: TUNTAP_VNET_HDR | IFF_TAP}): TUNSETIFF with IFF_TAP|IFF_VNET_HDR,
//   plus IFF_MULTI_QUEUE|IFF_NO_PI for `multiQueue`; then TUNSETOWNER and TUNSETGROUP;
// - otherwise `ip tuntap add mode tap [multi_queue] [user U] [group G]` (iproute2 adds
//   IFF_NO_PI unless told `pi`): TUNSETIFF with IFF_TAP|IFF_NO_PI [|IFF_MULTI_QUEUE], and
//   TUNSETOWNER / TUNSETGROUP only for the ids given.
// Both end with TUNSETPERSIST. We keep the flags of each path, since a VM monitor attaching to the
// tap must ask for the same IFF_VNET_HDR and IFF_NO_PI the device was made with.
import { IFF_MULTI_QUEUE, IFF_NO_PI, IFF_TAP, IFF_VNET_HDR } from '../../lib/linux/tun-flags.ts';

export interface TapIds {
  readonly multiQueue: boolean;
  readonly owner?: number;
  readonly group?: number;
  readonly selinuxContext?: string;
}

/** TUNSETIFF flags the reference would make this tap with. */
export function planTapFlags(c: TapIds): number {
  const netlinkPath = c.owner !== undefined && c.group !== undefined && c.selinuxContext === undefined;
  if (netlinkPath) return IFF_TAP | IFF_VNET_HDR | (c.multiQueue ? IFF_MULTI_QUEUE | IFF_NO_PI : 0);
  return IFF_TAP | IFF_NO_PI | (c.multiQueue ? IFF_MULTI_QUEUE : 0);
}

/** tun.c: dev->min_mtu is ETH_MIN_MTU, dev->max_mtu MAX_MTU (65535) less the Ethernet header. */
export const TAP_MIN_MTU = 68;
export const TAP_MAX_MTU = 65535 - 14;

/** Why a tap cannot have this MTU, or undefined; 0 is the kernel's default, as in the reference. */
export function tapMtuProblem(mtu: number): string | undefined {
  if (mtu === 0 || (mtu >= TAP_MIN_MTU && mtu <= TAP_MAX_MTU)) return undefined;
  return `invalid MTU ${mtu} (must be 0 for the default, or between ${TAP_MIN_MTU} and ${TAP_MAX_MTU})`;
}
