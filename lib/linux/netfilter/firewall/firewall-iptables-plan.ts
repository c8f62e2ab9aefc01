// The firewall plugin's iptables rules as iptables-restore input (pure), in the reference's
// layout (https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/iptables.go
// and ingresspolicy.go), filter table, one family at a time:
//   FORWARD (first):        comment -j CNI-FORWARD
//   CNI-FORWARD (first):    comment -j CNI-ADMIN (iptablesAdminChainName; the admin's own chain, never written)
//   CNI-FORWARD:            per address: -d ip -m conntrack RELATED,ESTABLISHED -j ACCEPT; -s ip -j ACCEPT
//   same-bridge, FORWARD (first): comment -j CNI-ISOLATION-STAGE-1
//   CNI-ISOLATION-STAGE-1:  per bridge (first): -i br ! -o br -j CNI-ISOLATION-STAGE-2; last: -j RETURN
//   CNI-ISOLATION-STAGE-2:  per bridge (first): -o br -j DROP; last: -j RETURN
// Rules are written exactly as iptables-save prints them, so "is it there" is a line compare.
// The shared chains and the isolation rules stay after DEL, as in the reference: other pods
// (of either implementation) may still use them.
import type { SavedTable } from '../core/iptables-save.ts';
import { addrBytesOf, type FirewallTarget } from './firewall-spec.ts';
import type { NftKernelRule } from '../core/nft-rule-dump.ts';
import {
  chainHasRule,
  commentJumpExprs,
  comparesValue,
  podRuleAppends,
  podRuleExprs,
  podRulesEncodedAsOurs,
  ruleDeletes,
  ruleMatcher,
} from './iptables-nft-rules.ts';

type Family = 4 | 6;
const HOST_BITS: Record<Family, number> = { 4: 32, 6: 128 };

export const FW_CHAIN = 'CNI-FORWARD';
export const FW_ISOLATION_1 = 'CNI-ISOLATION-STAGE-1';
export const FW_ISOLATION_2 = 'CNI-ISOLATION-STAGE-2';
const FW_COMMENT_TEXT = 'CNI firewall plugin rules';
const ADMIN_COMMENT_TEXT = 'CNI firewall plugin admin overrides';
const FW_COMMENT = `"${FW_COMMENT_TEXT}"`;
const ADMIN_COMMENT = `"${ADMIN_COMMENT_TEXT}"`;
const ISOLATION_COMMENT = '"CNI firewall plugin rules (ingressPolicy: same-bridge)"';

export const forwardJump = (): string => `-A FORWARD -m comment --comment ${FW_COMMENT} -j ${FW_CHAIN}`;
export const adminJump = (admin: string): string => `-A ${FW_CHAIN} -m comment --comment ${ADMIN_COMMENT} -j ${admin}`;

/** The two rules of one address: replies in, anything out. */
export function podRules(t: FirewallTarget, family: Family): string[] {
  return t.addrs
    .filter((a) => a.family === family)
    .flatMap((a) => {
      const ip = `${a.ip}/${HOST_BITS[family]}`;
      return [`-A ${FW_CHAIN} -d ${ip} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`, `-A ${FW_CHAIN} -s ${ip} -j ACCEPT`];
    });
}

export const isolationJump = (): string => `-A FORWARD -m comment --comment ${ISOLATION_COMMENT} -j ${FW_ISOLATION_1}`;
const isolationReturn = (chain: string): string => `-A ${chain} -m comment --comment ${ISOLATION_COMMENT} -j RETURN`;
export const isolationStage1 = (br: string): string =>
  `-A ${FW_ISOLATION_1} -i ${br} ! -o ${br} -m comment --comment ${ISOLATION_COMMENT} -j ${FW_ISOLATION_2}`;
export const isolationStage2 = (br: string): string => `-A ${FW_ISOLATION_2} -o ${br} -m comment --comment ${ISOLATION_COMMENT} -j DROP`;

/** "-A CHAIN rest" → "-I CHAIN 1 rest": the reference puts these first. */
const first = (line: string): string => line.replace(/^-A (\S+) /, '-I $1 1 ');
const del = (line: string): string => line.replace(/^-A /, '-D ');
const check = (line: string): string => line.replace(/^-A /, '-C ');

const restoreText = (lines: readonly string[]): string => ['*filter', ...lines, 'COMMIT', ''].join('\n');

/** What ADD writes, in the reference's order of steps; only what is missing. Undefined: all there. */
export function planIptablesFirewallSetup(saved: SavedTable, t: FirewallTarget, family: Family): string | undefined {
  const pods = podRules(t, family);
  if (pods.length === 0) return undefined;
  const have = new Set(saved.rules.map((r) => r.line));
  const lines: string[] = [];
  const chain = (name: string) => {
    if (!saved.chains.has(name) && !lines.includes(`:${name} - [0:0]`)) lines.push(`:${name} - [0:0]`);
  };
  // ensureFirstChainRule / InsertUnique(prepend): inserted at the top unless already anywhere.
  const atTop = (rule: string) => {
    if (!have.has(rule)) lines.push(first(rule));
  };
  const atEnd = (rule: string) => {
    if (!have.has(rule) && !lines.includes(rule)) lines.push(rule);
  };
  chain(FW_CHAIN);
  chain(t.adminChain);
  atTop(forwardJump());
  atTop(adminJump(t.adminChain));
  pods.forEach(atEnd);
  if (t.ingressPolicy === 'same-bridge' && t.bridge !== undefined) {
    chain(FW_ISOLATION_1);
    chain(FW_ISOLATION_2);
    atTop(isolationJump());
    atTop(isolationStage1(t.bridge));
    atEnd(isolationReturn(FW_ISOLATION_1));
    atTop(isolationStage2(t.bridge));
    atEnd(isolationReturn(FW_ISOLATION_2));
  }
  return lines.length === 0 ? undefined : restoreText(lines);
}

/**
 * ADD without reading the table, for the common case of a node where the shared chains are in
 * place and nothing names this pod's addresses yet. The shared rules are checked, not written:
 * `-C` refuses the whole transaction when one is missing (the first pod, a new bridge, an admin's
 * edit), and the caller then reads and plans. The pod's rules are appended: the caller has seen
 * that no rule of the chain compares an address with theirs (chainNamesAddresses), so they
 * cannot be there already, and the reference's append-unless-present is kept.
 */
export function planIptablesFirewallAppend(t: FirewallTarget, family: Family): string | undefined {
  const pods = podRules(t, family);
  if (pods.length === 0) return undefined;
  const shared = [forwardJump(), adminJump(t.adminChain)];
  if (t.ingressPolicy === 'same-bridge' && t.bridge !== undefined) {
    shared.push(isolationJump(), isolationStage1(t.bridge), isolationReturn(FW_ISOLATION_1), isolationStage2(t.bridge), isolationReturn(FW_ISOLATION_2));
  }
  return restoreText([...shared.map(check), ...pods]);
}

/**
 * Whether a rule of the chain (as iptables-nft stores it in nftables) compares a value equal to
 * one of the target's addresses of `family`: iptables-nft writes `-s`/`-d` as a payload load and
 * a cmp of the address's bytes, so a pod rule of ours is there only if this is true. Other
 * mentions (another rule of that address) count too: the caller then reads the exact table.
 */
export function chainNamesAddresses(rules: readonly NftKernelRule[], t: FirewallTarget, family: Family): boolean {
  const mine = addrBytesOf(t, family);
  return rules.some((r) => mine.some((b) => b !== undefined && comparesValue(r, b)));
}

/**
 * The common ADD with no process at all (iptables-nft-rules.ts): the batch that appends the
 * pod's rules over nfnetlink, given the kernel's rules of CNI-FORWARD and FORWARD. Undefined,
 * and the caller runs iptables-restore, unless the shared jumps are there and the node's
 * iptables is seen to write our encoding (a pod's rule pair, byte for byte). same-bridge
 * isolation is left to iptables-restore: its rules are not compared here.
 */
export function planIptablesFirewallNetlinkAppend(
  t: FirewallTarget,
  family: Family,
  chains: { readonly forward: readonly NftKernelRule[]; readonly fw: readonly NftKernelRule[] },
): ReturnType<typeof podRuleAppends> | undefined {
  if (t.ingressPolicy === 'same-bridge') return undefined;
  const addrs = addrBytesOf(t, family);
  if (addrs.length === 0 || addrs.some((b) => b === undefined)) return undefined;
  if (chainNamesAddresses(chains.fw, t, family)) return undefined;
  if (!chainHasRule(chains.forward, commentJumpExprs(FW_COMMENT_TEXT, FW_CHAIN, false))) return undefined;
  if (!chainHasRule(chains.fw, commentJumpExprs(ADMIN_COMMENT_TEXT, t.adminChain, false))) return undefined;
  if (!podRulesEncodedAsOurs(chains.fw, family)) return undefined;
  return podRuleAppends(family, FW_CHAIN, addrs as Buffer[]);
}

/**
 * DEL with no process at all (iptables-nft-rules.ts): given the kernel's rules of CNI-FORWARD,
 * the batch that deletes by handle what `iptables -D` of each address's two rules deletes, the
 * first rule that is exactly each of them (counters aside). Empty when no rule compares an
 * address: nothing to delete. Undefined, and the caller runs iptables, when a rule compares one
 * in any other form: the node's iptables may write the pod's rules another way, and only it can
 * tell which rule `-D` would take. A rule that is exactly ours is the rule `-D` takes, whoever
 * wrote it: the same bytes are the same rule to iptables.
 */
export function planIptablesFirewallNetlinkDelete(t: FirewallTarget, family: Family, fw: readonly NftKernelRule[]): ReturnType<typeof ruleDeletes> | undefined {
  const handles: bigint[] = [];
  for (const addr of addrBytesOf(t, family)) {
    if (addr === undefined) return undefined;
    const naming = fw.filter((r) => comparesValue(r, addr));
    const ours = podRuleExprs(family, addr, false).map(ruleMatcher);
    if (naming.some((r) => !ours.some((isOurs) => isOurs(r)))) return undefined;
    for (const isOurs of ours) {
      const first = naming.find(isOurs);
      if (first === undefined) continue;
      if (first.handle === undefined) return undefined;
      handles.push(first.handle);
    }
  }
  return ruleDeletes(family, FW_CHAIN, handles);
}

/** DEL without reading: both rules of every address (refused as a whole when one is missing). */
export function planIptablesFirewallDelete(t: FirewallTarget, family: Family): string | undefined {
  const pods = podRules(t, family);
  return pods.length === 0 ? undefined : restoreText(pods.map(del));
}

/** DEL from what the table shows: the rules of the addresses that are there. */
export function planIptablesFirewallTeardown(saved: SavedTable, t: FirewallTarget, family: Family): string | undefined {
  const have = new Set(saved.rules.map((r) => r.line));
  const gone = podRules(t, family).filter((r) => have.has(r));
  return gone.length === 0 ? undefined : restoreText(gone.map(del));
}

/** CHECK: the first missing piece, in the reference's words, or undefined. */
export function checkIptablesFirewall(saved: SavedTable, t: FirewallTarget, family: Family): string | undefined {
  const have = new Set(saved.rules.map((r) => r.line));
  const wanted = [forwardJump(), adminJump(t.adminChain), ...podRules(t, family)];
  if (t.ingressPolicy === 'same-bridge' && t.bridge !== undefined) wanted.push(isolationJump(), isolationStage1(t.bridge), isolationStage2(t.bridge));
  for (const name of [FW_CHAIN, t.adminChain]) if (!saved.chains.has(name)) return `chain ${name} not found`;
  const missing = wanted.find((r) => !have.has(r));
  return missing === undefined ? undefined : `expected rule "${missing.slice(3)}" not found`;
}
