// The firewall iptables executor. ADD, per family, on iptables-nft with the shared chains in
// place: a look over nfnetlink, then the pod's rules appended over nfnetlink where the node's
// iptables is seen to write them the same way (iptables-nft-rules.ts), else one
// iptables-restore. Otherwise one iptables-save of the filter table and at most one
// iptables-restore. DEL first tries the blind delete (one process), then reads.
import { runTool } from './exec.ts';
import {
  chainNamesAddresses,
  checkIptablesFirewall,
  FW_CHAIN,
  planIptablesFirewallAppend,
  planIptablesFirewallDelete,
  planIptablesFirewallNetlinkAppend,
  planIptablesFirewallSetup,
  planIptablesFirewallTeardown,
} from './firewall-iptables-plan.ts';
import { familiesOf, type FirewallTarget } from './firewall-spec.ts';
import { parseSavedTable, type SavedTable } from './iptables-save.ts';
import { iptablesInNftables, iptablesTools, restore } from './masq-iptables.ts';
import { dumpNftRules } from './nft-rule-dump.ts';
import { NFT_FAMILY } from './nft-attrs.ts';
import { nftBatch, nftGeneration } from './nfnl.ts';
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
  if (await appendOverNetlink(t, families)) return;
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
  const rules = await dumpNftRules(NFT_FAMILY[family], 'filter', FW_CHAIN);
  if (rules === 'unknown' || chainNamesAddresses(rules, t, family)) return false;
  try {
    await restore(family, text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The common ADD with no process: the pod's rules of every family appended over nfnetlink in
 * one transaction, where the node's iptables-nft is seen to write them the same way
 * (planIptablesFirewallNetlinkAppend). One transaction for both families because the ruleset's
 * generation is the netns's, not a family's: a batch per family would refuse the other. False,
 * for the per-family path, when that does not apply or the kernel refused (the ruleset changed
 * since the look).
 */
async function appendOverNetlink(t: FirewallTarget, families: readonly Family[]): Promise<boolean> {
  if (!families.every(iptablesInNftables)) return false;
  // Before the look: a change after it makes the kernel refuse the batch.
  const generation = await nftGeneration().catch(() => undefined);
  if (generation === undefined) return false;
  const messages: NonNullable<ReturnType<typeof planIptablesFirewallNetlinkAppend>> = [];
  for (const f of families) {
    const fw = await dumpNftRules(NFT_FAMILY[f], 'filter', FW_CHAIN);
    const forward = fw === 'unknown' ? 'unknown' : await dumpNftRules(NFT_FAMILY[f], 'filter', 'FORWARD');
    const planned = fw === 'unknown' || forward === 'unknown' ? undefined : planIptablesFirewallNetlinkAppend(t, f, { forward, fw });
    if (planned === undefined) return false;
    messages.push(...planned);
  }
  try {
    await nftBatch('NFT_MSG_NEWRULE', messages, generation);
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
