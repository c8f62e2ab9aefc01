// The one place that decides which backend writes a feature's rules when the config names none,
// and whether a named one can work here: masquerade, portmap and firewall all ask it. It looks
// on PATH only (no process runs); the rule itself is pure, given which tools the node has.
import { lookPath } from './exec.ts';
import type { Family } from './iptables.ts';

export type RuleBackend = 'iptables' | 'nftables';

/** Whether the node has `tool` (an executable's name, e.g. "nft", "ip6tables-save"). */
export type HasTool = (tool: string) => boolean;

const IPT: Record<Family, string> = { 4: 'iptables', 6: 'ip6tables' };

/** A family's iptables backend needs both its -save and its -restore. */
export const iptablesIn = (has: HasTool, family: Family): boolean => has(`${IPT[family]}-save`) && has(`${IPT[family]}-restore`);

/**
 * The default when the config names no backend: iptables unless IPv4's iptables tools are
 * missing and nft is there (the reference prefers iptables too, but probes it by running it).
 * With neither, iptables, whose setup then names the missing tool.
 */
export function chooseRuleBackend(has: HasTool): RuleBackend {
  return !iptablesIn(has, 4) && has('nft') ? 'nftables' : 'iptables';
}

/** firewall's default: firewalld when it runs (the reference's rule), else the rule above. */
export function chooseFirewallBackend(firewalldRunning: boolean, has: HasTool): RuleBackend | 'firewalld' {
  return firewalldRunning ? 'firewalld' : chooseRuleBackend(has);
}

/** Why `backend` cannot work on a node with these tools, or undefined. */
export function ruleBackendProblem(backend: RuleBackend, has: HasTool): string | undefined {
  if (backend === 'nftables') return has('nft') ? undefined : 'nftables backend unavailable: "nft" not found in PATH';
  return iptablesIn(has, 4) || iptablesIn(has, 6) ? undefined : 'iptables backend unavailable: neither iptables nor ip6tables (-save, -restore) found in PATH';
}

/** This node's tools, as found on PATH (lookPath caches per process). */
export const onPath: HasTool = (tool) => lookPath(tool) !== undefined;

// The same questions about this node. One argument each: they are passed to Array.filter.
export const hasIptables = (family: Family): boolean => iptablesIn(onPath, family);
export const hasNft = (): boolean => onPath('nft');
export const defaultRuleBackend = (): RuleBackend => chooseRuleBackend(onPath);
export const backendProblem = (backend: RuleBackend): string | undefined => ruleBackendProblem(backend, onPath);
