// Netfilter state the plugins own: one folder per feature (masquerade, spoofcheck, portmap,
// firewall) over core/ (tools, lock, names, token checks, nfnetlink, and core/backend.ts, which
// chooses the backend for all of them). Names, comments and layout are the reference's, so
// either implementation's DEL removes what the other's ADD created. Everything acts on the
// current netns.
export { resolveMasqBackend, setupIpMasq, teardownIpMasq, gcIpMasq, type MasqBackend, type MasqTarget } from './masquerade/masq.ts';
export { gcMacSpoofCheck, setupMacSpoofCheck, teardownMacSpoofCheck, type SpoofRef, type SpoofTarget } from './spoofcheck/spoofcheck.ts';
export { masqChainName } from './core/names.ts';
export { ToolError, ToolMissingError } from './core/exec.ts';
export { NetfilterErrors } from './core/settle.ts';
// Backend choice; portmap's names kept for its plugin.
export { defaultRuleBackend as defaultPortmapBackend, backendProblem as portmapBackendProblem, type RuleBackend } from './core/backend.ts';
// portmap (hostPort DNAT), both backends.
export { setupPortmap, teardownPortmap, teardownPortmapWithoutMappings, checkPortmap, gcPortmap, type PortmapBackend } from './portmap/portmap.ts';
export {
  containerAddr,
  ipFamily,
  PORT_PROTOCOLS,
  type ContainerAddr,
  type PortMapping,
  type PortmapTarget,
  type PortProtocol,
} from './portmap/portmap-spec.ts';
export { CONDITION_MAX_LEN, CONDITION_TOKEN_RE, IPTABLES_CHAIN_RE } from './core/validate.ts';
// firewall (FORWARD accept rules, same-bridge isolation), three backends.
export { setupFirewall, teardownFirewall, checkFirewall, gcFirewall, defaultFirewallBackend, firewallBackendProblem } from './firewall/firewall.ts';
export {
  FIREWALL_BACKENDS,
  FIREWALLD_ZONE_RE,
  type FirewallAddr,
  type FirewallBackend,
  type FirewallTarget,
  type IngressPolicy,
} from './firewall/firewall-spec.ts';
export { firewallNftKey } from './firewall/firewall-nft-plan.ts';
