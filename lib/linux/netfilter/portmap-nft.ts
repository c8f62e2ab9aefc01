// The portmap nftables executor. ADD: one `nft -f -` for both families, nothing read. DEL and
// GC: the two tables read (in parallel), then one transaction deleting rules by handle.
import { applyNft, listNft } from './nft.ts';
import { NFT_FAMILY } from './nft-attrs.ts';
import { PORTMAP_NFT_TABLE } from './names.ts';
import type { NftListing } from './nft-json.ts';
import { checkNftPortmap, planNftPortmapGc, planNftPortmapSetup, planNftPortmapTeardown } from './portmap-nft-plan.ts';
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

export async function checkPortmapNft(t: PortmapTarget, addrs: readonly ContainerAddr[]): Promise<void> {
  for (const addr of addrs) {
    const problem = checkNftPortmap(await listTable(addr.family), t, addr);
    if (problem !== undefined) throw new Error(problem);
  }
}

export function gcPortmapNft(network: string, validIds: ReadonlySet<string>): Promise<void> {
  return readPlanApplyBoth((listings) => planNftPortmapGc(listings, validIds, network));
}
