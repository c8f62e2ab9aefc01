// Netfilter state the bridge plugin owns: ipMasq (iptables and nftables backends) and the MAC
// spoof check. Names, comments and layout are the reference's, so either implementation's DEL
// removes what the other's ADD created. Everything acts on the current netns.
export { resolveMasqBackend, setupIpMasq, teardownIpMasq, gcIpMasq, type MasqBackend, type MasqTarget } from './masq.ts';
export { setupMacSpoofCheck, teardownMacSpoofCheck, type SpoofTarget } from './spoofcheck.ts';
export { masqChainName } from './names.ts';
export { ToolError, ToolMissingError } from './exec.ts';
export { NetfilterErrors } from './settle.ts';
