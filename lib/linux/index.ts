// The Linux layer: the only code that touches the kernel.
export { NetlinkError, isExists, isNetlinkError, isNotFound, nl, toNetlinkError } from './netlink-error.ts';
export { Netns, NetnsError, type NetnsErrorCode } from './netns.ts';
export { openContainerNetns, openContainerNetnsIfExists } from './container-netns.ts';
export { readSysctl, writeSysctl } from './sysctl.ts';
export { normalizeSysctlKey, sysctlPath } from './sysctl-key.ts';
export { deleteLink, getLinkByIndex, getLinkByName, listLinks, setLinkDown, setLinkMtu, setLinkUp, type LinkInfo, type OperState } from './link.ts';
export { addAddress, delAddress, listAddresses, type AddAddressOptions, type AddrInfo } from './addr.ts';
// File locks (host-local's store, nft serialization).
export { flock, LOCK_EX, LOCK_NB, LOCK_SH, LOCK_UN } from './addon.ts';
// Bridges, veth pairs, bridge-port VLANs and options (our own netlink codec: nl-codec.ts).
export { createBridge, setBridgePortOptions, type BridgePortOptions, type NewBridge } from './bridge.ts';
export { createVeth, randomVethName, setupVeth, VethError, type VethEnd, type VethPair, type VethSpec } from './veth.ts';
export { addPortVlans, clearPortVlans, planVlanRuns, VLAN_MAX, VLAN_MIN, type PortVlans, type VlanRun } from './bridge-vlan.ts';
export { setLinkAllmulti, setLinkMac, setLinkMaster, setLinkPromisc, setLinkTxqlen } from './link-set.ts';
export {
  bridgePortFlags,
  bridgeVlanFiltering,
  getLinkDetail,
  ipvlanMode,
  listLinkDetails,
  macvlanBcQueueLen,
  macvlanMode,
  vlanIdOf,
  type LinkDetail,
} from './link-detail.ts';
// macvlan and ipvlan links on a parent, and the node's default-route interface (their default parent).
export {
  createLowerLink,
  defaultRouteInterface,
  findParent,
  resolveParent,
  type ParentChoice,
  IPVLAN_MODE,
  LowerLinkError,
  MACVLAN_MODE,
  type IpvlanMode,
  type LowerLinkPlace,
  type LowerLinkSpec,
  type MacvlanMode,
} from './lower-link.ts';
// vlan links, and moving, renaming and aliasing a link (vlan, host-device).
export { changeLink, createVlan, type LinkChange, type NewVlan } from './link-change.ts';
export { waitOperUp, OperStateError, OPER_UP_BACKOFF_MS } from './wait-oper.ts';
// Routes, address settling, and configuring a container interface from a result.
export { addRoute, deleteRoute, listRoutes, type RouteInfo, type RouteSpec } from './route.ts';
export {
  addDefaultRoute,
  copyRoute,
  deleteDefaultRoute,
  deleteListedRoute,
  linkRoutes,
  restoreRoute,
  routesInTable,
  usedTables,
  type KernelRoute,
} from './route-table.ts';
export { addRule, deleteRule, encodeRule, listRules, parseRule, type RuleInfo, type RuleSpec } from './fib-rule.ts';
export { listIpv6AddrStates, settleIpv6Addresses, SettleError, type AddrState, type SettleOptions } from './addr-settle.ts';
export { configureIface, ConfigureIfaceError } from './configure-iface.ts';
export { announceAddresses } from './announce.ts';
// CHECK of a container interface and of prevResult's addresses and routes (bridge, ptp).
export { CheckError, validateContainerIface, validateIps, validateRoutes } from './check-iface.ts';
export { validateLowerLink, type LowerLinkWant } from './lower-link-check.ts';
export { planIfaceConfig, IfaceConfigError, type IfacePlan, type PlannedRoute } from './iface-plan.ts';
// Pure helpers on addresses.
export { formatMac, isUnicastMac, parseMac } from './mac.ts';
export { ETH_MAX_MTU, ETH_MIN_MTU, ethMtuProblem, lowerLinkMtuProblem } from './mtu.ts';
// Netfilter state owned by the bridge plugin: ipMasq and the MAC spoof check.
export * from './netfilter/index.ts';
// Traffic control (bandwidth): tbf/ingress qdiscs, u32+mirred redirect, ifb (our codec: tc/).
export * from './tc/index.ts';
export { deleteConntrackByDstPort } from './conntrack.ts';
export { routeInterface } from './route-get.ts';
// dummy and tun/tap links (the dummy and tap plugins).
export { createDummy, encodeNewDummy } from './dummy.ts';
export { createTun, TunError, type TunSpec } from './tuntap.ts';
export { IFF_MULTI_QUEUE, IFF_NO_PI, IFF_PERSIST, IFF_TAP, IFF_TUN, IFF_VNET_HDR } from './tun-flags.ts';
export { clearExecLabel, setExecLabel, SelinuxError } from './selinux.ts';
// vrf links (the vrf plugin).
export { createVrf, encodeNewVrf, vrfTableOf } from './vrf.ts';
