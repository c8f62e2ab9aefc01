// portmap: DNAT of host ports to a container, with the reference's iptables or nftables
// layout (reference: https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/meta/portmap/portmap_iptables.go and portmap_nftables.go). Every entry point validates the tokens again (they are written into
// rule text) and holds the netfilter lock around its read-modify-write.
import { CniError, ErrorCode } from '../../../cni-spec/errors.ts';
import { goQuote } from '../../../cni-spec/go-json.ts';
import { hasIptables, hasNft, type RuleBackend } from '../core/backend.ts';
import { withNetfilterLock } from '../core/lock.ts';
import { checkPortmapIptables, gcPortmapIptables, setupPortmapIptables, teardownPortmapIptables } from './portmap-iptables.ts';
import { checkPortmapNft, gcPortmapNft, hasPortmapNftMarkers, setupPortmapNft, teardownOwnedPortmapNft, teardownPortmapNft } from './portmap-nft.ts';
import { PORT_PROTOCOLS, ipFamily, type ContainerAddr, type PortmapTarget } from './portmap-spec.ts';
import { settleAll } from '../core/settle.ts';
import {
  CONDITION_MAX_LEN,
  CONDITION_TOKEN_RE,
  IPTABLES_CHAIN_RE,
  NFT_PORTMAP_COMMENT_MAX,
  validateContainerIdToken,
  validateNetworkToken,
} from '../core/validate.ts';

export type PortmapBackend = RuleBackend;
type Family = 4 | 6;

const IPT = { 4: 'iptables', 6: 'ip6tables' } as const;
function configError(msg: string): CniError {
  return new CniError(ErrorCode.InvalidNetworkConfig, msg);
}

/** Defence in depth: loadConf checked all of this already, with field names. */
export function validatePortmapTarget(t: PortmapTarget, backend: PortmapBackend): void {
  validateNetworkToken(t.network);
  validateContainerIdToken(t.containerId);
  for (const m of t.mappings) {
    for (const p of [m.hostPort, m.containerPort]) if (!Number.isInteger(p) || p < 1 || p > 65535) throw configError(`invalid port ${p}`);
    if (!PORT_PROTOCOLS.includes(m.protocol)) throw configError(`invalid protocol ${goQuote(m.protocol)}`);
    if (m.hostIP !== undefined && ipFamily(m.hostIP) === undefined) throw configError(`invalid host IP ${goQuote(m.hostIP)}`);
  }
  for (const c of [...t.conditionsV4, ...t.conditionsV6]) {
    if (c.length > CONDITION_MAX_LEN || !CONDITION_TOKEN_RE.test(c)) throw configError(`invalid condition ${goQuote(c.slice(0, 64))}`);
  }
  if (!Number.isInteger(t.markMasqBit) || t.markMasqBit < 0 || t.markMasqBit > 31) throw configError('MasqMarkBit must be between 0 and 31');
  if (t.externalSetMarkChain !== undefined && !IPTABLES_CHAIN_RE.test(t.externalSetMarkChain)) {
    throw configError(`invalid externalSetMarkChain ${goQuote(t.externalSetMarkChain)}`);
  }
  if (backend === 'nftables' && t.containerId.length > NFT_PORTMAP_COMMENT_MAX) {
    throw new CniError(ErrorCode.InvalidEnvironmentVariables, `container id is too long for an nftables rule comment (${NFT_PORTMAP_COMMENT_MAX} characters)`);
  }
}

export async function setupPortmap(backend: PortmapBackend, t: PortmapTarget, addrs: readonly ContainerAddr[]): Promise<void> {
  validatePortmapTarget(t, backend);
  if (addrs.length === 0) return;
  if (backend === 'iptables') {
    const missing = addrs.find((a) => !hasIptables(a.family));
    if (missing) throw new Error(`failed to open iptables: ${IPT[missing.family]}-restore or ${IPT[missing.family]}-save not found in PATH`);
    await withNetfilterLock(() => setupPortmapIptables(t, addrs));
  } else {
    if (!hasNft()) throw new Error('unable to set up nftables rules for port mappings: "nft" not found in PATH');
    await withNetfilterLock(() => setupPortmapNft(t, addrs));
  }
}

/**
 * Removes this container's rules. `backend` set (DEL): that backend, as the reference does, in
 * the families given (those of prevResult; both when unknown), the iptables rules first by a
 * blind delete of what `t` would have written. `backend` undefined: both backends, both
 * families, from what the tables show. What is already gone is fine; a backend whose tools
 * are not installed cannot hold rules.
 */
export async function teardownPortmap(
  network: string,
  containerId: string,
  o: { backend?: PortmapBackend; target?: PortmapTarget; families?: readonly Family[] } = {},
): Promise<void> {
  validateNetworkToken(network);
  validateContainerIdToken(containerId);
  if (o.target) validatePortmapTarget(o.target, o.backend ?? 'iptables');
  const wanted = o.families ?? [4, 6];
  const families = wanted.filter(hasIptables);
  const iptables = o.backend !== 'nftables' && families.length > 0;
  const nft = o.backend !== 'iptables' && hasNft();
  await withNetfilterLock(() =>
    settleAll([
      iptables ? teardownPortmapIptables(network, containerId, families, o.target) : Promise.resolve(),
      nft ? teardownPortmapNft(network, containerId, wanted) : Promise.resolve(),
    ]),
  );
}

/**
 * DEL without mappings on the nftables backend (a runtime that lost the pod's metadata, a
 * network that maps no ports of the pod): the reference does nothing then (plugins#510), which
 * leaves the rules of a pod that had hostPorts. Every rule of ours carries the container id and
 * our ADD marks, per network, the pod's addresses, so a look over nfnetlink (no process, no
 * lock) tells whether this network holds anything of the container; only then are the rules the
 * markers prove read and deleted the usual way. The iptables backend keeps the reference's
 * early return: a look there is an `iptables-save` process on every DEL of a pod without
 * hostPorts.
 */
export async function teardownPortmapWithoutMappings(network: string, containerId: string): Promise<void> {
  validateNetworkToken(network);
  validateContainerIdToken(containerId);
  if (!hasNft() || (await hasPortmapNftMarkers(network, containerId)) === false) return;
  await withNetfilterLock(() => teardownOwnedPortmapNft(network, containerId));
}

export async function checkPortmap(backend: PortmapBackend, t: PortmapTarget, addrs: readonly ContainerAddr[]): Promise<void> {
  validatePortmapTarget(t, backend);
  if (backend === 'iptables') await checkPortmapIptables(t, addrs);
  else await checkPortmapNft(t, addrs);
}

/**
 * GC of both backends, each only what provably belongs to `network`. iptables: the chains of
 * `network` (their names and comments carry it) whose container is not valid. nftables: the
 * reference comments its rules with the container id alone, in a table every network shares, so
 * only the rules our ADD marked as this network's (portmap-nft-plan.ts) are candidates; a
 * network that never used nftables has no markers and loses nothing there.
 */
export async function gcPortmap(network: string, validIds: ReadonlySet<string>): Promise<void> {
  validateNetworkToken(network);
  const families = ([4, 6] as const).filter(hasIptables);
  await withNetfilterLock(() =>
    settleAll([
      families.length > 0 ? gcPortmapIptables(network, validIds, families) : Promise.resolve(),
      hasNft() ? gcPortmapNft(network, validIds) : Promise.resolve(),
    ]),
  );
}
