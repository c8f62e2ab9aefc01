// The firewall iptables executor: per family one iptables-save of the filter table and at most
// one iptables-restore for ADD; DEL first tries the blind delete (one process), then reads.
import { runTool } from './exec.ts';
import { checkIptablesFirewall, planIptablesFirewallDelete, planIptablesFirewallSetup, planIptablesFirewallTeardown } from './firewall-iptables-plan.ts';
import { familiesOf, type FirewallTarget } from './firewall-spec.ts';
import { parseSavedTable, type SavedTable } from './iptables-save.ts';
import { iptablesTools, restore } from './masq-iptables.ts';
import { settleAll } from './settle.ts';

type Family = 4 | 6;

async function readFilter(family: Family): Promise<SavedTable> {
  return parseSavedTable(await runTool(iptablesTools(family).save, ['-t', 'filter']), 'filter');
}

/** Read, plan, apply; once more from a fresh read if refused (the Go plugin does not take our lock). */
async function readPlanApply(family: Family, plan: (saved: SavedTable) => string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const text = plan(await readFilter(family));
    if (text === undefined) return;
    try {
      return await restore(family, text);
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}

export async function setupFirewallIptables(t: FirewallTarget): Promise<void> {
  const families = familiesOf(t);
  // Both families' tools before anything is written: a missing ip6tables must not leave v4 half done.
  families.forEach(iptablesTools);
  await settleAll(families.map((f) => readPlanApply(f, (saved) => planIptablesFirewallSetup(saved, t, f))));
}

export async function teardownFirewallIptables(t: FirewallTarget, families: readonly Family[]): Promise<void> {
  await settleAll(
    families.map(async (f) => {
      const blind = planIptablesFirewallDelete(t, f);
      if (blind === undefined) return;
      try {
        return await restore(f, blind);
      } catch {
        // some of them are gone already: delete what is left
      }
      await readPlanApply(f, (saved) => planIptablesFirewallTeardown(saved, t, f));
    }),
  );
}

export async function checkFirewallIptables(t: FirewallTarget): Promise<void> {
  for (const f of familiesOf(t)) {
    const problem = checkIptablesFirewall(await readFilter(f), t, f);
    if (problem !== undefined) throw new Error(`ipv${f} firewall rules: ${problem}`);
  }
}
