// The MTUs the links bridge and ptp create take (veth and bridge devices). Both keep
// ether_setup's min_mtu, ETH_MIN_MTU, and set max_mtu to ETH_MAX_MTU
// (include/uapi/linux/if_ether.h; drivers/net/veth.c, net/bridge/br_device.c). The kernel
// refuses anything else only when the link is made, which in ptp is after IPAM has allocated:
// checking at config load keeps a refused ADD from leaving anything behind.

export const ETH_MIN_MTU = 68;
export const ETH_MAX_MTU = 65535;

/** Why a veth or bridge cannot have this MTU, or undefined; 0 is the kernel's default, as in the reference. */
export function ethMtuProblem(mtu: number): string | undefined {
  if (mtu === 0 || (mtu >= ETH_MIN_MTU && mtu <= ETH_MAX_MTU)) return undefined;
  return `invalid MTU ${mtu} (must be 0 for the default, or between ${ETH_MIN_MTU} and ${ETH_MAX_MTU})`;
}

/**
 * Why a macvlan or ipvlan on a parent of MTU `parentMtu` cannot have this MTU, or undefined. The
 * kernel refuses one above the parent's (macvlan_common_newlink, ipvlan_link_new) and one under
 * ETH_MIN_MTU; the first is the reference's own check and message (macvlan.go loadConf).
 */
export function lowerLinkMtuProblem(mtu: number, parentMtu: number): string | undefined {
  if (mtu < 0 || mtu > parentMtu) return `invalid MTU ${mtu}, must be [0, master MTU(${parentMtu})]`;
  if (mtu !== 0 && mtu < ETH_MIN_MTU) return `invalid MTU ${mtu} (must be 0 for the default, or between ${ETH_MIN_MTU} and ${parentMtu})`;
  return undefined;
}
