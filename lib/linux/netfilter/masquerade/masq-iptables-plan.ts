// The iptables masquerade rules as iptables-restore input (pure). One restore per family is one
// kernel transaction, where the reference runs up to seven iptables commands per address.
//
// Shape, per attachment (reference pkg/ip/ipmasq_iptables_linux.go), in the nat table:
//   chain CNI-<24 hex>:  -d <subnet> -j ACCEPT            (one per subnet of the family)
//                        ! -d 224.0.0.0/4 (ff00::/8) -j MASQUERADE
//   POSTROUTING:         -s <ip> -j CNI-<24 hex>          (one per address)
// every rule commented `name: "<net>" id: "<cid>"`.
import { iptablesComment, masqChainName } from '../core/names.ts';
import { ruleOption, ruleTarget, type SavedTable } from '../core/iptables-save.ts';
import type { MasqAddr } from '../core/validate.ts';

export type Family = 4 | 6;

const MULTICAST: Record<Family, string> = { 4: '224.0.0.0/4', 6: 'ff00::/8' };
const HOST_BITS: Record<Family, number> = { 4: 32, 6: 128 };

/** The comment as an iptables-restore argument (validated tokens hold no backslash). */
function quoted(comment: string): string {
  return `"${comment.replaceAll('"', '\\"')}"`;
}

function restoreText(lines: readonly string[]): string {
  return ['*nat', ...lines, 'COMMIT', ''].join('\n');
}

/**
 * Restore input creating (or rebuilding) the attachment's chain for the addresses of one
 * family, and the POSTROUTING jumps that are not there yet. The chain is keyed by network and
 * container id only, so a second interface of the same container on the same network shares
 * it: its ACCEPTs already there are kept. Declaring the chain empties it, so a repeated ADD
 * leaves one copy of each rule, like the reference's AppendUnique, and all ACCEPTs come before
 * the MASQUERADE (the reference appends a second subnet's ACCEPT after it, where it never matches).
 */
export function planIptablesMasqSetup(saved: SavedTable, network: string, containerId: string, addrs: readonly MasqAddr[]): string | undefined {
  return planSetup(saved, { network, containerId }, addrs, 'declare');
}

/**
 * The same rules for a table not read first, as for a new container: the chain is created
 * with `-N`, which fails, and takes the whole transaction with it, if the chain exists. Then no
 * jump to it can exist either (a jump needs its target), so the blind plan is exact or nothing.
 */
export function planIptablesMasqCreate(network: string, containerId: string, addrs: readonly MasqAddr[]): string | undefined {
  return planSetup({ chains: new Set(), rules: [] }, { network, containerId }, addrs, 'create');
}

function planSetup(
  saved: SavedTable,
  { network, containerId }: { network: string; containerId: string },
  addrs: readonly MasqAddr[],
  chainLine: 'declare' | 'create',
): string | undefined {
  if (addrs.length === 0) return undefined;
  const family = addrs[0]!.family;
  const chain = masqChainName(network, containerId);
  const c = `-m comment --comment ${quoted(iptablesComment(network, containerId))}`;
  const kept = saved.rules.filter((r) => r.chain === chain && ruleTarget(r) === 'ACCEPT').map((r) => ruleOption(r, '-d'));
  const subnets = new Set([...kept.filter((d) => d !== undefined), ...addrs.map((a) => a.subnet)]);
  const lines = [chainLine === 'create' ? `-N ${chain}` : `:${chain} - [0:0]`];
  for (const subnet of subnets) lines.push(`-A ${chain} -d ${subnet} -j ACCEPT ${c}`);
  lines.push(`-A ${chain} ! -d ${MULTICAST[family]} -j MASQUERADE ${c}`);
  const jumped = new Set(saved.rules.filter((r) => r.chain === 'POSTROUTING' && ruleTarget(r) === chain).map((r) => ruleOption(r, '-s')));
  for (const ip of new Set(addrs.map((a) => a.ip))) {
    if (!jumped.has(`${ip}/${HOST_BITS[family]}`)) lines.push(`-A POSTROUTING -s ${ip} -j ${chain} ${c}`);
  }
  return restoreText(lines);
}

/**
 * The teardown for a table not read first, as for a DEL that knows the attachment's addresses
 * (one family): delete each address's POSTROUTING jump exactly as the setup wrote it, then
 * flush and delete the chain. Any difference from what the setup made fails the whole
 * transaction: a jump not there (-D), another jump still needing the chain (-X), no chain.
 * Then nothing changed, and planIptablesMasqTeardown decides from the table; so the blind
 * plan, when it applies, does exactly what that one would.
 */
export function planIptablesMasqDelete(network: string, containerId: string, addrs: readonly MasqAddr[]): string | undefined {
  if (addrs.length === 0) return undefined;
  const chain = masqChainName(network, containerId);
  const c = `-m comment --comment ${quoted(iptablesComment(network, containerId))}`;
  const jumps = [...new Set(addrs.map((a) => a.ip))].map((ip) => `-D POSTROUTING -s ${ip} -j ${chain} ${c}`);
  return restoreText([...jumps, `-F ${chain}`, `-X ${chain}`]);
}

/**
 * Restore input removing the given chains and the POSTROUTING-or-other jumps to them. With
 * `addrs` (the addresses being released, one family) only their jumps go, in the `-s <ip>`
 * form and the legacy `-s <ip>/<prefix>` form (saved as the subnet), and a chain goes only when
 * no other jump still needs it: another interface of the same container on the same network
 * shares the chain (the reference fails that DEL on the busy chain instead). Without `addrs`
 * (a DEL that knows no addresses, or GC) every jump goes. Undefined when nothing is to do.
 */
export function planIptablesMasqTeardown(saved: SavedTable, chains: readonly string[], addrs?: readonly MasqAddr[]): string | undefined {
  const doomed = new Set(chains);
  const sources = addrs && new Set(addrs.flatMap((a) => [`${a.ip}/${HOST_BITS[a.family]}`, a.subnet]));
  const deletes: string[] = [];
  const stillNeeded = new Set<string>();
  for (const r of saved.rules) {
    const target = ruleTarget(r);
    if (target === undefined || !doomed.has(target) || doomed.has(r.chain)) continue;
    if (sources === undefined || sources.has(ruleOption(r, '-s') ?? '')) deletes.push(`-D${r.line.slice(2)}`);
    else stillNeeded.add(target);
  }
  const gone = [...doomed].filter((c) => saved.chains.has(c) && !stillNeeded.has(c));
  const lines = [...deletes, ...gone.map((c) => `-F ${c}`), ...gone.map((c) => `-X ${c}`)];
  return lines.length === 0 ? undefined : restoreText(lines);
}

const COMMENT_RE = /^name: "([^"]*)" id: "([^"]*)"$/;

/**
 * GC: the masquerade chains of `network` whose container id is in none of the valid
 * attachments. A chain counts as ours only when its name is the hash of the network and the
 * container id its comments name, so portmap's CNI-DN-… chains (same comment form) are safe.
 */
export function selectIptablesGcChains(saved: SavedTable, network: string, validIds: ReadonlySet<string>): string[] {
  const stale = new Set<string>();
  for (const r of saved.rules) {
    const m = COMMENT_RE.exec(ruleOption(r, '--comment') ?? '');
    if (m === null || m[1] !== network || validIds.has(m[2]!)) continue;
    const chain = masqChainName(network, m[2]!);
    if (r.chain === chain || ruleTarget(r) === chain) stale.add(chain);
  }
  return [...stale].sort();
}
