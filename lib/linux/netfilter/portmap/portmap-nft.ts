// The portmap nftables executor. ADD: one `nft -f -` for both families, nothing read. DEL and
// GC: the two tables read (in parallel), then one transaction deleting rules by handle. A DEL
// without mappings first looks over nfnetlink (no process) for this network's markers of the
// container, and reads and deletes only when there are some.
import { applyNft, listNft } from '../core/nft.ts';
import { NFT_FAMILY } from '../core/nft-attrs.ts';
import { dumpNftRules } from '../core/nft-rule-dump.ts';
import { PORTMAP_NFT_TABLE, portmapNftNetworkChain } from '../core/names.ts';
import type { NftListing } from '../core/nft-json.ts';
import { checkNftPortmap, planNftPortmapGc, planNftPortmapSetup, planNftPortmapTeardown, planNftPortmapTeardownOwned } from './portmap-nft-plan.ts';
import type { ContainerAddr, PortmapTarget } from './portmap-spec.ts';

type Family = 4 | 6;

const listTable = (f: Family): Promise<NftListing> => listNft(['table', NFT_FAMILY[f], PORTMAP_NFT_TABLE]);

export async function setupPortmapNft(t: PortmapTarget, addrs: readonly ContainerAddr[]): Promise<void> {
  try {
    await applyNft(planNftPortmapSetup(t, addrs));
  } catch (err) {
    throw new Error(`unable to set up nftables rules for port mappings: ${(err as Error).message}`, { cause: err });
  }
}

/** Read the families' tables, plan, apply; once more from a fresh read if a handle vanished meanwhile (the Go plugin does not take our lock). */
async function readPlanApplyBoth(plan: (listings: NftListing[]) => string | undefined, families: readonly Family[] = [4, 6]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const script = plan(await Promise.all(families.map(listTable)));
    if (script === undefined) return;
    try {
      return await applyNft(script);
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}

export function teardownPortmapNft(network: string, containerId: string, families: readonly Family[] = [4, 6]): Promise<void> {
  return readPlanApplyBoth((listings) => planNftPortmapTeardown(listings, containerId, network), families);
}

/**
 * Whether `network`'s marker chain holds a marker of `containerId`, in either family's table,
 * asked over nfnetlink: two dumps of one small chain, well under a millisecond, and nothing at
 * all to find when the table does not exist (the dump is empty). 'unknown' when nfnetlink
 * cannot answer: the caller then reads with `nft`.
 */
export async function hasPortmapNftMarkers(network: string, containerId: string): Promise<boolean | 'unknown'> {
  const chain = portmapNftNetworkChain(network);
  const dumps = await Promise.all(([4, 6] as const).map((f) => dumpNftRules(NFT_FAMILY[f], PORTMAP_NFT_TABLE, chain)));
  if (dumps.includes('unknown')) return 'unknown';
  return dumps.some((rules) => rules !== 'unknown' && rules.some((r) => r.comment === containerId));
}

/** DEL without mappings: the rules `network`'s markers prove are this container's (planNftPortmapTeardownOwned). */
export function teardownOwnedPortmapNft(network: string, containerId: string): Promise<void> {
  return readPlanApplyBoth((listings) => planNftPortmapTeardownOwned(listings, containerId, network));
}

export async function checkPortmapNft(t: PortmapTarget, addrs: readonly ContainerAddr[]): Promise<void> {
  for (const addr of addrs) {
    const problem = checkNftPortmap(await listTable(addr.family), t, addr);
    if (problem !== undefined) throw new Error(problem);
  }
}

export function gcPortmapNft(network: string, validIds: ReadonlySet<string>): Promise<void> {
  return readPlanApplyBoth((listings) => planNftPortmapGc(listings, validIds, network));
}
