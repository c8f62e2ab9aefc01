// What a bridge ADD leaves on a node and in a pod, read back with the system tools
// (ip, bridge, nft, iptables-save): what tests assert on, and what must be gone after DEL.
// "Nothing there" is only an answer when the tool said so (no such device, no such table);
// a tool that failed otherwise throws, so a "nothing is left" assertion cannot pass on it.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { masqChainName } from '../../lib/linux/netfilter/core/names.ts';
import { firewallStateOf } from './firewall.ts';
import { portmapRulesOf } from './portmap.ts';
import { ipJson, nsExec, nsRun } from '../../test-support/sh.ts';
import { UPLINK } from './topology.ts';

export interface LinkInfo {
  ifname: string;
  ifindex: number;
  mtu: number;
  address: string;
  master?: string;
  flags: string[];
  operstate: string;
  linkinfo?: {
    info_kind?: string;
    info_data?: Record<string, unknown>;
    info_slave_kind?: string;
    info_slave_data?: { hairpin?: boolean; isolated?: boolean; [k: string]: unknown };
  };
}

export async function links(ns: string, ...filter: string[]): Promise<LinkInfo[]> {
  return ipJson<LinkInfo[]>(ns, ['-d', 'link', 'show', ...filter]);
}

/** One link, or undefined when `ip` says the device does not exist. */
export async function link(ns: string, dev: string): Promise<LinkInfo | undefined> {
  const r = await nsExec(ns, 'ip', ['-j', '-d', 'link', 'show', 'dev', dev]);
  if (r.code === 0) return (JSON.parse(r.stdout) as LinkInfo[])[0];
  if (r.stderr.trim() === `Device "${dev}" does not exist.`) return undefined;
  throw new Error(`ip link show dev ${dev} in ${ns} failed (exit ${r.code}): ${r.stderr.trim()}`);
}

/** Veth interfaces in a netns. */
export async function veths(ns: string): Promise<string[]> {
  return (await links(ns, 'type', 'veth')).map((l) => l.ifname);
}

/** Veth interfaces in the node, the uplink to the remote excepted. */
export async function nodeVeths(node: string): Promise<string[]> {
  return (await veths(node)).filter((n) => n !== UPLINK.nodeIf);
}

/**
 * Waits (up to `ms`) for the node's veths to go after a pod's netns was deleted. The kernel
 * destroys a deleted netns on a work queue, and the node's end of its veth goes some time later
 * (over a second on a busy two-core machine): that is the kernel's work, not a plugin's.
 */
export async function untilNodeVethsGone(node: string, ms = 15_000): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    if ((await nodeVeths(node)).length === 0) return;
  }
}

/** Every link in a pod except its loopback. */
export async function podLinks(pod: string): Promise<string[]> {
  return (await links(pod)).map((l) => l.ifname).filter((n) => n !== 'lo');
}

/** host-local's reservation files for a network (the addresses it holds; not the lock or the round-robin markers), sorted. */
export function ipFiles(dataDir: string, network: string): string[] {
  try {
    return readdirSync(join(dataDir, network))
      .filter((f) => f !== 'lock' && !f.startsWith('last_reserved_ip'))
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** iptables (v4 and v6) nat lines that belong to CNI masquerading: CNI-… chains and jumps to them. */
export async function iptablesMasq(node: string): Promise<string[]> {
  const saves = await Promise.all(['iptables-save', 'ip6tables-save'].map((save) => nsRun(node, save, ['-t', 'nat'])));
  return saves.flatMap((out) => out.split('\n').filter((l) => /CNI-/.test(l)));
}

/** `nft list table` in the node: the listing, or '' when the table does not exist; any other failure throws. */
export async function nftListing(node: string, family: string, table: string): Promise<string> {
  const r = await nsExec(node, 'nft', ['list', 'table', family, table]);
  if (r.code === 0) return r.stdout;
  // nft's whole answer for a missing table; `ip netns exec` says "exec of … failed" for a missing nft
  if (r.code === 1 && r.stderr.startsWith('Error: No such file or directory\n')) return '';
  throw new Error(`nft list table ${family} ${table} in ${node} failed (exit ${r.code}): ${r.stderr.trim()}`);
}

/** Per-address masquerade rules of the nftables backend (table inet cni_plugins_masquerade). */
export async function nftMasq(node: string): Promise<string[]> {
  const text = await nftListing(node, 'inet', 'cni_plugins_masquerade');
  return text
    .split('\n')
    .filter((l) => /saddr/.test(l) && /masquerade/.test(l))
    .map((l) => l.trim());
}

/** Every masquerade trace in the node, both backends. */
export async function masqRules(node: string): Promise<string[]> {
  const [ipt, nft] = await Promise.all([iptablesMasq(node), nftMasq(node)]);
  return [...ipt, ...nft];
}

/** The masquerade traces of one pod: lines naming its container id or one of its addresses. */
export async function masqRulesOf(node: string, containerId: string, addrs: readonly string[]): Promise<string[]> {
  const ips = addrs.map((a) => a.split('/')[0] as string);
  const mentions = (l: string) =>
    l.includes(`id: "${containerId}"`) || l.includes(`id: ${containerId}`) || ips.some((ip) => l.includes(` ${ip}/`) || l.includes(`saddr ${ip} `));
  return (await masqRules(node)).filter(mentions);
}

/** macspoofchk traces: the per-attachment chains and the rules commented macspoofchk-…. */
export async function spoofRules(node: string): Promise<string[]> {
  const text = await nftListing(node, 'bridge', 'nat');
  return text
    .split('\n')
    .filter((l) => /cni-br-iface|macspoofchk/.test(l))
    .map((l) => l.trim());
}

export interface VlanEntry {
  vlan: number;
  flags?: string[];
}

/** `bridge -j vlan show` in the node: port name → its VLAN entries. */
export async function vlanTable(node: string): Promise<Map<string, VlanEntry[]>> {
  const raw = JSON.parse((await nsRun(node, 'bridge', ['-j', 'vlan', 'show'])) || '[]') as {
    ifname: string;
    vlans: VlanEntry[];
  }[];
  return new Map(raw.map((p) => [p.ifname, p.vlans]));
}

/** Everything a pod's attachment may leave behind, for a single "nothing is left" assertion. */
export async function leftovers(o: { node: string; pod?: string; dataDir: string; network: string }): Promise<Record<string, string[]>> {
  const [veths, masq, spoof, pod] = await Promise.all([
    nodeVeths(o.node),
    masqRules(o.node),
    spoofRules(o.node),
    o.pod === undefined ? Promise.resolve([]) : podLinks(o.pod),
  ]);
  const found: Record<string, string[]> = {
    'veths in node': veths,
    'IP files': ipFiles(o.dataDir, o.network),
    'masquerade rules': masq,
    'spoofcheck rules': spoof,
    'links in pod': pod,
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
}

export interface AttachmentRef {
  readonly node: string;
  readonly network: string;
  readonly containerId: string;
  /** the pod's netns name (none: the pod's netns is not the test's to look into) */
  readonly pod?: string;
  /** host-local's dataDir */
  readonly dataDir: string;
  /** the ADD result: its addresses, and the host-side interfaces (no sandbox) it names */
  readonly result: { ips?: { address: string }[]; interfaces?: { name: string; sandbox?: string }[] };
  /** the runtime's cache file of the attachment, if it has one */
  readonly cacheFile?: string;
}

/**
 * What one attachment of any chain (bridge or ptp, host-local, portmap, firewall) left: its host
 * veth, its address files, its masquerade chain and rules, its port mapping chain and rules, the
 * firewall rules naming its addresses, links in its pod, its cache file. Shared chains (the
 * portmap and firewall entry chains, the bridge) stay, as with the reference plugins.
 */
export async function attachmentTraces(a: AttachmentRef): Promise<Record<string, string[]>> {
  const ips = (a.result.ips ?? []).map((ip) => ip.address.split('/')[0] as string);
  const hostIfs = (a.result.interfaces ?? []).filter((i) => i.sandbox === undefined).map((i) => i.name);
  const chain = masqChainName(a.network, a.containerId);
  const [present, masq, masqChain, portmap, firewall, pod] = await Promise.all([
    // a bridge stays when its last pod goes: only the attachment's own veth counts
    Promise.all(hostIfs.map(async (n) => ((await link(a.node, n))?.linkinfo?.info_kind === 'veth' ? [n] : []))),
    masqRulesOf(a.node, a.containerId, ips),
    iptablesMasq(a.node).then((ls) => ls.filter((l) => l.includes(chain))),
    portmapRulesOf(a.node, a.network, a.containerId),
    firewallStateOf(a.node, ips),
    a.pod === undefined ? Promise.resolve([]) : podLinks(a.pod),
  ]);
  const found: Record<string, string[]> = {
    'host veth': present.flat(),
    'IP files': ipFiles(a.dataDir, a.network).filter((f) => ips.includes(f)),
    'masquerade rules': [...new Set([...masq, ...masqChain])],
    'port mapping rules': portmap,
    'firewall rules': firewall,
    'links in pod': pod,
    'cached result': a.cacheFile !== undefined && existsSync(a.cacheFile) ? [a.cacheFile] : [],
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
}
