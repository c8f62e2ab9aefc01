// TUNSETIFF flags (include/uapi/linux/if_tun.h). Pure, for plans and tests that make no device.
export const IFF_TUN = 0x0001;
export const IFF_TAP = 0x0002;
export const IFF_MULTI_QUEUE = 0x0100;
export const IFF_VNET_HDR = 0x4000;
export const IFF_NO_PI = 0x1000;
/** Not a TUNSETIFF flag: what /sys/class/net/<dev>/tun_flags adds for a persistent device. */
export const IFF_PERSIST = 0x0800;
