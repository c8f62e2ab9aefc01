// The iptables masquerade executor: per family one `iptables-save -t nat` to see what is there,
// then at most one `iptables-restore --noflush` transaction. iptables/ip6tables are whatever the
// system's alternatives point to (legacy or nft), the same binaries the Go plugin runs.
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { requireTool, runTool } from '../core/exec.ts';
import { parseSavedNat, type SavedTable } from '../core/iptables-save.ts';
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

const BACKEND = 'iptables';
const PREFIX: Record<Family, string> = { 4: 'iptables', 6: 'ip6tables' };

export function iptablesTools(family: Family): { save: string; restore: string } {
  return { save: requireTool(`${PREFIX[family]}-save`, BACKEND), restore: requireTool(`${PREFIX[family]}-restore`, BACKEND) };
}

/**
 * Whether the family's iptables-restore is iptables-nft (xtables-nft-multi, whatever links lead
 * there), which keeps its rules in nftables where nfnetlink can read them. A wrapper script or
 * iptables-legacy answers false, and callers then read with iptables-save.
 */
export function iptablesInNftables(family: Family): boolean {
  try {
    return basename(realpathSync(iptablesTools(family).restore)) === 'xtables-nft-multi';
  } catch {
    return false;
  }
}

export async function readNat(family: Family): Promise<SavedTable> {
  return parseSavedNat(await runTool(iptablesTools(family).save, ['-t', 'nat']));
}

export async function restore(family: Family, text: string): Promise<void> {
  // -w: wait for the xtables lock (iptables-legacy); --noflush: touch only what the input names.
  await runTool(iptablesTools(family).restore, ['-w', '--noflush'], text);
}

/**
 * Read, plan, apply; once more from a fresh read if the apply fails, since a process that does
 * not take our lock (kube-proxy, the Go plugins) may have changed the table in between.
 */
export async function readPlanApply(family: Family, plan: (saved: SavedTable) => string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const text = plan(await readNat(family));
    if (text === undefined) return;
    try {
      return await restore(family, text);
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}

export async function setupMasqIptables(network: string, containerId: string, addrs: readonly MasqAddr[]): Promise<void> {
  const families = ([4, 6] as const).filter((f) => addrs.some((a) => a.family === f));
  // Resolve both families' tools before touching anything: a missing ip6tables must not leave v4 half done.
  families.forEach(iptablesTools);
  await settleAll(
    families.map(async (f) => {
      const mine = addrs.filter((a) => a.family === f);
      if (await createFresh(f, network, containerId, mine)) return;
      await readPlanApply(f, (saved) => planIptablesMasqSetup(saved, network, containerId, mine));
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
      await readPlanApply(f, (saved) => planIptablesMasqTeardown(saved, [chain], mine));
    }),
  );
}

export async function gcMasqIptables(network: string, validIds: ReadonlySet<string>, families: readonly Family[]): Promise<void> {
  await settleAll(families.map((f) => readPlanApply(f, (saved) => planIptablesMasqTeardown(saved, selectIptablesGcChains(saved, network, validIds)))));
}
