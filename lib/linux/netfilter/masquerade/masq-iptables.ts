// The iptables masquerade executor: per family one `iptables-save -t nat` to see what is there,
// then at most one `iptables-restore --noflush` transaction (core/iptables.ts runs them).
import { iptablesTools, readPlanApply, restore } from '../core/iptables.ts';
import {
  type Family,
  planIptablesMasqCreate,
  planIptablesMasqDelete,
  planIptablesMasqSetup,
  planIptablesMasqTeardown,
  selectIptablesGcChains,
} from './masq-iptables-plan.ts';
import { masqChainName } from '../core/names.ts';
import { settleAll } from '../core/settle.ts';
import type { MasqAddr } from '../core/validate.ts';

export async function setupMasqIptables(network: string, containerId: string, addrs: readonly MasqAddr[]): Promise<void> {
  const families = ([4, 6] as const).filter((f) => addrs.some((a) => a.family === f));
  // Resolve both families' tools before touching anything: a missing ip6tables must not leave v4 half done.
  families.forEach(iptablesTools);
  await settleAll(
    families.map(async (f) => {
      const mine = addrs.filter((a) => a.family === f);
      if (await createFresh(f, network, containerId, mine)) return;
      await readPlanApply(f, 'nat', (saved) => planIptablesMasqSetup(saved, network, containerId, mine));
    }),
  );
}

/**
 * The common case, a new container, in one process instead of two: apply the blind plan, and
 * only when it is refused (the chain exists: a repeated ADD, a second interface) read the table
 * and plan from what is there. Saves an iptables-save per family on most ADDs (~5 ms each).
 */
async function createFresh(family: Family, network: string, containerId: string, addrs: readonly MasqAddr[]): Promise<boolean> {
  const text = planIptablesMasqCreate(network, containerId, addrs);
  if (text === undefined) return true;
  try {
    await restore(family, text);
    return true;
  } catch {
    return false;
  }
}

/**
 * With addresses: their jumps, in their families, and the chain unless still jumped to.
 * Without (`addrs` empty): the chain and every jump to it, in every family given.
 */
export async function teardownMasqIptables(network: string, containerId: string, addrs: readonly MasqAddr[], families: readonly Family[]): Promise<void> {
  const chain = masqChainName(network, containerId);
  await settleAll(
    families.map(async (f) => {
      const mine = addrs.length === 0 ? undefined : addrs.filter((a) => a.family === f);
      // The common case, a DEL of what the setup made, in one process instead of two.
      const blind = mine && planIptablesMasqDelete(network, containerId, mine);
      if (blind !== undefined) {
        try {
          return await restore(f, blind);
        } catch {
          // not exactly what the setup made (or nothing at all): look at the table
        }
      }
      await readPlanApply(f, 'nat', (saved) => planIptablesMasqTeardown(saved, [chain], mine));
    }),
  );
}

export async function gcMasqIptables(network: string, validIds: ReadonlySet<string>, families: readonly Family[]): Promise<void> {
  await settleAll(families.map((f) => readPlanApply(f, 'nat', (saved) => planIptablesMasqTeardown(saved, selectIptablesGcChains(saved, network, validIds)))));
}
