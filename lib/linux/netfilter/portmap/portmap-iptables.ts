// The portmap iptables executor: per family at most one iptables-restore for an ADD of a new
// container (blind), else one iptables-save and one restore; DEL reads and writes once per family.
import { readPlanApply, readTable, restore, type Family } from '../core/iptables.ts';
import {
  checkIptablesPortmap,
  planIptablesPortmapCreate,
  planIptablesPortmapDelete,
  planIptablesPortmapSetup,
  planIptablesPortmapTeardown,
  portmapChains,
  selectIptablesPortmapGcChains,
} from './portmap-iptables-plan.ts';
import type { ContainerAddr, PortmapTarget } from './portmap-spec.ts';
import { settleAll } from '../core/settle.ts';

export async function setupPortmapIptables(t: PortmapTarget, addrs: readonly ContainerAddr[]): Promise<void> {
  await settleAll(
    addrs.map(async (addr) => {
      try {
        // The common case: a new container on a node where the shared chains exist.
        return await restore(addr.family, planIptablesPortmapCreate(t, addr));
      } catch {
        try {
          await readPlanApply(addr.family, 'nat', (saved) => planIptablesPortmapSetup(saved, t, addr));
        } catch (err) {
          throw new Error(`unable to setup DNAT: ${(err as Error).message}`, { cause: err });
        }
      }
    }),
  );
}

/** With the config's mappings, first the blind delete (one process per family); else, or when refused, read and plan. */
export async function teardownPortmapIptables(network: string, containerId: string, families: readonly Family[], t?: PortmapTarget): Promise<void> {
  const chains = portmapChains(network, containerId);
  await settleAll(
    families.map(async (f) => {
      if (t !== undefined && t.mappings.length > 0) {
        try {
          return await restore(f, planIptablesPortmapDelete(t, f));
        } catch {
          // not exactly what this config made (or nothing at all): look at the table
        }
      }
      await readPlanApply(f, 'nat', (saved) => planIptablesPortmapTeardown(saved, chains));
    }),
  );
}

/** Throws the first problem found, family by family. */
export async function checkPortmapIptables(t: PortmapTarget, addrs: readonly ContainerAddr[]): Promise<void> {
  for (const addr of addrs) {
    const problem = checkIptablesPortmap(await readTable(addr.family, 'nat'), t, addr);
    if (problem !== undefined) throw new Error(`could not check ipv${addr.family} dnat: ${problem}`);
  }
}

export async function gcPortmapIptables(network: string, validIds: ReadonlySet<string>, families: readonly Family[]): Promise<void> {
  await settleAll(
    families.map((f) => readPlanApply(f, 'nat', (saved) => planIptablesPortmapTeardown(saved, selectIptablesPortmapGcChains(saved, network, validIds)))),
  );
}
