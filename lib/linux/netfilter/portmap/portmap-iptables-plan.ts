// The portmap iptables rules as iptables-restore input (pure), in the reference's layout
// (plugins/meta/portmap/portmap_iptables.go), nat table:
//   PREROUTING, OUTPUT:    -m addrtype --dst-type LOCAL -j CNI-HOSTPORT-DNAT
//   CNI-HOSTPORT-DNAT:     per protocol and ≤15 host ports: comment, multiport, conditions -j CNI-DN-<hash>
//   CNI-DN-<hash>:         per mapping: hairpin mark, localhost mark (IPv4), DNAT
//   POSTROUTING (first):   comment -j CNI-HOSTPORT-MASQ; CNI-HOSTPORT-SETMARK sets, CNI-HOSTPORT-MASQ masquerades the mark
// Every rule is written exactly as iptables-save prints it, so a saved table can be compared
// line by line (CHECK, and "is it there already") with what we would write.
import { ruleOption, ruleTarget, type SavedRule, type SavedTable } from '../core/iptables-save.ts';
import {
  PORTMAP_DNAT_CHAIN,
  PORTMAP_MASQ_CHAIN,
  PORTMAP_MASQ_COMMENT,
  PORTMAP_SETMARK_CHAIN,
  PORTMAP_SETMARK_COMMENT,
  portmapDnatChainName,
  portmapDnatComment,
  portmapOldSnatChainName,
} from '../core/names.ts';
import { conditionsFor, hostPortText, mappingsFor, type ContainerAddr, type PortmapTarget, type PortProtocol } from './portmap-spec.ts';

type Family = 4 | 6;
const HOST_BITS: Record<Family, number> = { 4: 32, 6: 128 };
/** xt_multiport takes at most 15 ports per rule. */
const MULTIPORT_MAX = 15;

/** A token as iptables-restore reads it (validated tokens hold no quote or backslash). */
function arg(s: string): string {
  return /[\s"]/.test(s) || s === '' ? `"${s.replaceAll('"', '\\"')}"` : s;
}

function restoreText(lines: readonly string[]): string {
  return ['*nat', ...lines, 'COMMIT', ''].join('\n');
}

export const toplevelEntryRules = (): string[] => ['PREROUTING', 'OUTPUT'].map((c) => `-A ${c} -m addrtype --dst-type LOCAL -j ${PORTMAP_DNAT_CHAIN}`);

const markValue = (bit: number): string => {
  const v = `0x${(2 ** bit).toString(16)}`;
  return `${v}/${v}`;
};
export const setMarkRule = (bit: number): string =>
  `-A ${PORTMAP_SETMARK_CHAIN} -m comment --comment ${arg(PORTMAP_SETMARK_COMMENT)} -j MARK --set-xmark ${markValue(bit)}`;
export const masqRule = (bit: number): string => `-A ${PORTMAP_MASQ_CHAIN} -m mark --mark ${markValue(bit)} -j MASQUERADE`;
export const masqEntryRule = (): string => `-A POSTROUTING -m comment --comment ${arg(PORTMAP_MASQ_COMMENT)} -j ${PORTMAP_MASQ_CHAIN}`;

/** The container chain's rules for one address, in the reference's order: marks first, then DNAT. */
export function dnatChainRules(t: PortmapTarget, addr: ContainerAddr): string[] {
  const chain = portmapDnatChainName(t.network, t.containerId);
  const setMark = t.externalSetMarkChain ?? PORTMAP_SETMARK_CHAIN;
  const lines: string[] = [];
  for (const { m, dst } of mappingsFor(t, addr.family)) {
    const d = dst === undefined ? '' : ` -d ${dst}/${HOST_BITS[addr.family]}`;
    const match = `-p ${m.protocol} -m ${m.protocol} --dport ${m.hostPort}`;
    if (t.snat) {
      // masqAll's 0.0.0.0/0 (::/0) matches everything: iptables-save prints no -s for it.
      const src = t.masqAll ? '' : ` -s ${addr.subnet}`;
      lines.push(`-A ${chain}${src}${d} ${match} -j ${setMark}`);
      if (addr.family === 4 && !t.masqAll) lines.push(`-A ${chain} -s 127.0.0.1/32${d} ${match} -j ${setMark}`);
    }
    lines.push(`-A ${chain}${d} ${match} -j DNAT --to-destination ${hostPortText(addr.ip, m.containerPort)}`);
  }
  return lines;
}

export interface EntryRule {
  readonly protocol: PortProtocol;
  /** "8080,8081" */
  readonly ports: string;
  readonly line: string;
}

/** The jumps from CNI-HOSTPORT-DNAT: per protocol (sorted), host ports of every mapping, 15 per rule. */
export function dnatEntryRules(t: PortmapTarget, family: Family): EntryRule[] {
  const chain = portmapDnatChainName(t.network, t.containerId);
  const byProto = new Map<PortProtocol, number[]>();
  for (const m of t.mappings) byProto.set(m.protocol, [...(byProto.get(m.protocol) ?? []), m.hostPort]);
  const conds = conditionsFor(t, family).map(arg);
  const comment = arg(portmapDnatComment(t.network, t.containerId));
  const out: EntryRule[] = [];
  for (const protocol of [...byProto.keys()].sort()) {
    const ports = byProto.get(protocol) ?? [];
    for (let i = 0; i < ports.length; i += MULTIPORT_MAX) {
      const list = ports.slice(i, i + MULTIPORT_MAX).join(',');
      const line = [`-A ${PORTMAP_DNAT_CHAIN} -p ${protocol} -m comment --comment ${comment} -m multiport --dports ${list}`, ...conds, `-j ${chain}`].join(' ');
      out.push({ protocol, ports: list, line });
    }
  }
  return out;
}

const usesSetMarkChains = (t: PortmapTarget): boolean => t.snat && t.externalSetMarkChain === undefined;

/**
 * For a container not set up yet, without reading the table: `-N` creates its chain, which
 * fails (and takes the whole transaction with it) when the chain exists. The shared chains must
 * exist already: a jump to a missing chain fails the same way, and the mark rules are checked
 * (`-C`), which fails unless the rule for this mark bit is there. Any refusal sends the caller
 * to planIptablesPortmapSetup with a read table. A check changes nothing, where deleting the
 * rule and adding it back (to the same effect) made the commit wait for a grace period: ~12 ms
 * more per ADD here.
 */
export function planIptablesPortmapCreate(t: PortmapTarget, addr: ContainerAddr): string {
  const chain = portmapDnatChainName(t.network, t.containerId);
  const lines = [`-N ${chain}`];
  if (usesSetMarkChains(t)) {
    for (const rule of [setMarkRule(t.markMasqBit), masqRule(t.markMasqBit)]) lines.push(`-C${rule.slice(2)}`);
  }
  lines.push(...dnatChainRules(t, addr), ...dnatEntryRules(t, addr.family).map((e) => e.line));
  return restoreText(lines);
}

/** Every rule outside `chain` that jumps to it, as delete commands. */
function deleteJumpsTo(saved: SavedTable, chain: string): string[] {
  return saved.rules.filter((r) => r.chain !== chain && ruleTarget(r) === chain).map((r) => `-D${r.line.slice(2)}`);
}

const has = (saved: SavedTable, line: string): boolean => saved.rules.some((r) => r.line === line);

/**
 * From a read table: whatever shared chain or rule is missing, and the container's chain
 * rebuilt (declaring a chain empties it) with its jumps replaced, so a repeated ADD leaves one
 * copy of everything, holding the mappings of the latest ADD.
 */
export function planIptablesPortmapSetup(saved: SavedTable, t: PortmapTarget, addr: ContainerAddr): string {
  const chain = portmapDnatChainName(t.network, t.containerId);
  const shared = [PORTMAP_DNAT_CHAIN, ...(usesSetMarkChains(t) ? [PORTMAP_SETMARK_CHAIN, PORTMAP_MASQ_CHAIN] : [])];
  const lines = [...shared.filter((c) => !saved.chains.has(c)).map((c) => `:${c} - [0:0]`), `:${chain} - [0:0]`];
  lines.push(...deleteJumpsTo(saved, chain));
  lines.push(...toplevelEntryRules().filter((l) => !has(saved, l)));
  if (usesSetMarkChains(t)) {
    for (const rule of [setMarkRule(t.markMasqBit), masqRule(t.markMasqBit)]) if (!has(saved, rule)) lines.push(rule);
    // Prepended: the bridge and ptp plugins' masquerade rules would otherwise come first.
    if (!has(saved, masqEntryRule())) lines.push(`-I POSTROUTING 1${masqEntryRule().slice('-A POSTROUTING'.length)}`);
  }
  lines.push(...dnatChainRules(t, addr), ...dnatEntryRules(t, addr.family).map((e) => e.line));
  return restoreText(lines);
}

/**
 * The container's chains (and the legacy CNI-SN- one) with every jump to them; undefined when
 * none of it exists. The shared chains stay, as in the reference.
 */
export function planIptablesPortmapTeardown(saved: SavedTable, chains: readonly string[]): string | undefined {
  const lines: string[] = [];
  for (const chain of chains) lines.push(...deleteJumpsTo(saved, chain));
  const present = chains.filter((c) => saved.chains.has(c));
  lines.push(...present.map((c) => `-F ${c}`), ...present.map((c) => `-X ${c}`));
  return lines.length === 0 ? undefined : restoreText(lines);
}

/**
 * DEL without reading the table: delete exactly the jumps this config's ADD wrote, then the
 * chain. Anything else (a jump that differs, one more jump, no chain at all) refuses the whole
 * transaction, and the caller falls back to planIptablesPortmapTeardown over a read table.
 */
export function planIptablesPortmapDelete(t: PortmapTarget, family: Family): string {
  const chain = portmapDnatChainName(t.network, t.containerId);
  return restoreText([...dnatEntryRules(t, family).map((e) => `-D${e.line.slice(2)}`), `-F ${chain}`, `-X ${chain}`]);
}

export function portmapChains(network: string, containerId: string): string[] {
  return [portmapDnatChainName(network, containerId), portmapOldSnatChainName(network, containerId)];
}

/**
 * CHECK: the chain, each of its rules, and each jump to it. Jumps are compared by protocol,
 * ports, comment and target: the conditions are the user's tokens, which iptables may print
 * in another form. Returns the first problem, in the reference's words, or undefined.
 */
export function checkIptablesPortmap(saved: SavedTable, t: PortmapTarget, addr: ContainerAddr): string | undefined {
  const chain = portmapDnatChainName(t.network, t.containerId);
  if (!saved.chains.has(chain)) return `chain ${chain} not found in iptables table nat`;
  for (const rule of dnatChainRules(t, addr)) {
    if (!has(saved, rule)) return `rule ${rule.replace(/^-A \S+ /, '')} in chain ${chain} not found in table nat`;
  }
  const comment = portmapDnatComment(t.network, t.containerId);
  const isEntry = (e: EntryRule) => (r: SavedRule) =>
    r.chain === PORTMAP_DNAT_CHAIN &&
    ruleTarget(r) === chain &&
    ruleOption(r, '-p') === e.protocol &&
    ruleOption(r, '--dports') === e.ports &&
    ruleOption(r, '--comment') === comment;
  for (const e of dnatEntryRules(t, addr.family)) {
    if (!saved.rules.some(isEntry(e))) return `rule ${e.line.replace(/^-A \S+ /, '')} in chain ${PORTMAP_DNAT_CHAIN} not found in table nat`;
  }
  return undefined;
}

const COMMENT_RE = /^dnat name: "([^"]*)" id: "([^"]*)"$/;

/**
 * GC: the container chains of `network` whose container id is in no valid attachment. A chain
 * counts only when its name is the hash of the network and the id its entry comment names.
 */
export function selectIptablesPortmapGcChains(saved: SavedTable, network: string, validIds: ReadonlySet<string>): string[] {
  const stale = new Set<string>();
  for (const r of saved.rules) {
    if (r.chain !== PORTMAP_DNAT_CHAIN) continue;
    const m = COMMENT_RE.exec(ruleOption(r, '--comment') ?? '');
    if (m === null || m[1] !== network || validIds.has(m[2]!)) continue;
    const chain = portmapDnatChainName(network, m[2]!);
    if (ruleTarget(r) === chain) stale.add(chain);
  }
  return [...stale].sort();
}
