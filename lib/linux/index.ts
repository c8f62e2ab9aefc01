// The Linux layer: the only code that touches the kernel.
export { NetlinkError, isExists, isNetlinkError, isNotFound, nl, toNetlinkError } from './netlink-error.ts';
export { Netns, NetnsError, type NetnsErrorCode } from './netns.ts';
export { openContainerNetns, openContainerNetnsIfExists } from './container-netns.ts';
export { readSysctl, writeSysctl } from './sysctl.ts';
export { normalizeSysctlKey, sysctlPath } from './sysctl-key.ts';
export {
  deleteLink,
  getLinkByIndex,
  getLinkByName,
  listLinks,
  setLinkDown,
  setLinkMtu,
  setLinkUp,
  type LinkInfo,
  type OperState,
} from './link.ts';
export { addAddress, delAddress, listAddresses, type AddrInfo } from './addr.ts';
export { formatIp, parseCidr, parseIp, type IpFamily, type ParsedCidr } from './ip-bytes.ts';
// File locks (host-local's store, nft serialization).
export { flock, LOCK_EX, LOCK_NB, LOCK_SH, LOCK_UN } from './addon.ts';
