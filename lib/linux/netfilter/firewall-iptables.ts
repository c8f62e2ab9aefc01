// The firewall iptables executor. ADD, per family: on iptables-nft with the shared chains in
// place, one iptables-restore after a look over nfnetlink; otherwise one iptables-save of the
// filter table and at most one iptables-restore. DEL first tries the blind delete (one
// process), then reads.
import { runTool } from './exec.ts';
import {
  chainNamesAddresses,
  checkIptablesFirewall,
  FW_CHAIN,
  planIptablesFirewallAppend,
  planIptablesFirewallDelete,
  planIptablesFirewallSetup,
  planIptablesFirewallTeardown,
} from './firewall-iptables-plan.ts';
import { familiesOf, type FirewallTarget } from './firewall-spec.ts';
import { parseSavedTable, type SavedTable } from './iptables-save.ts';
import { iptablesInNftables, iptablesTools, restore } from './masq-iptables.ts';
import { dumpNftRules } from './nft-rule-dump.ts';
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
  await settleAll(
    families.map(async (f) => {
      if (await appendUnread(f, t)) return;
      await readPlanApply(f, (saved) => planIptablesFirewallSetup(saved, t, f));
    }),
  );
}

/**
 * The common ADD in one process instead of two (planIptablesFirewallAppend): where iptables is
 * iptables-nft, its rules can be looked at over nfnetlink in place of an iptables-save. False
 * when that does not apply (iptables-legacy, a rule already names the address) or the
 * transaction was refused (a shared rule is missing): the caller reads and plans.
 */
async function appendUnread(family: Family, t: FirewallTarget): Promise<boolean> {
  const text = planIptablesFirewallAppend(t, family);
  if (text === undefined || !iptablesInNftables(family)) return false;
  const rules = await dumpNftRules(family === 4 ? 'ip' : 'ip6', 'filter', FW_CHAIN);
  if (rules === 'unknown' || chainNamesAddresses(rules, t, family)) return false;
  try {
    await restore(family, text);
    return true;
  } catch {
    return false;
  }
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
