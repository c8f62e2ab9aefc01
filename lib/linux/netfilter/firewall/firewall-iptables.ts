// The firewall iptables executor. ADD, per family, on iptables-nft with the shared chains in
// place: a look over nfnetlink, then the pod's rules appended over nfnetlink where the node's
// iptables is seen to write them the same way (iptables-nft-rules.ts), else one
// iptables-restore. Otherwise one iptables-save of the filter table and at most one
// iptables-restore. DEL, on iptables-nft, finds the pod's rules over nfnetlink and deletes them
// by handle, no process; otherwise it tries the blind delete (one process), then reads.
import {
  chainNamesAddresses,
  checkIptablesFirewall,
  FW_CHAIN,
  planIptablesFirewallAppend,
  planIptablesFirewallDelete,
  planIptablesFirewallNetlinkAppend,
  planIptablesFirewallNetlinkDelete,
  planIptablesFirewallSetup,
  planIptablesFirewallTeardown,
} from './firewall-iptables-plan.ts';
import { familiesOf, type FirewallTarget } from './firewall-spec.ts';
import { iptablesInNftables, iptablesTools, readPlanApply, readTable, restore, type Family } from '../core/iptables.ts';
import { dumpNftRules, type NftKernelRule } from '../core/nft-rule-dump.ts';
import { NFT_FAMILY } from '../core/nft-attrs.ts';
import { nftBatchIfUnchanged, nftGeneration } from '../core/nfnl.ts';
import { settleAll } from '../core/settle.ts';

export async function setupFirewallIptables(t: FirewallTarget): Promise<void> {
  const families = familiesOf(t);
  // Both families' tools before anything is written: a missing ip6tables must not leave v4 half done.
  families.forEach(iptablesTools);
  const inNftables = families.filter(iptablesInNftables);
  // Before the look: a change after it makes the kernel refuse the netlink batch.
  const generation = inNftables.length === families.length ? await nftGeneration() : undefined;
  let looks = await lookAt(inNftables);
  if (generation !== undefined) {
    const appended = await appendOverNetlink(t, looks, generation);
    if (appended === 'done') return;
    // The ruleset changed since the look: what follows must not go by it.
    if (appended === 'refused') looks = await lookAt(inNftables);
  }
  await settleAll(
    families.map(async (f) => {
      if (await appendUnread(f, t, looks.get(f)?.fw)) return;
      await readPlanApply(f, 'filter', (saved) => planIptablesFirewallSetup(saved, t, f));
    }),
  );
}

type Dump = NftKernelRule[] | 'unknown';

/** A family's CNI-FORWARD and FORWARD as iptables-nft keeps them in nftables, looked at over nfnetlink. */
interface Look {
  readonly fw: Dump;
  readonly forward: Dump;
}

/** The look of each family given (those whose iptables is iptables-nft), once for both ADD paths. */
async function lookAt(families: readonly Family[]): Promise<Map<Family, Look>> {
  const looks = new Map<Family, Look>();
  for (const f of families) {
    const fw = await dumpNftRules(NFT_FAMILY[f], 'filter', FW_CHAIN);
    looks.set(f, { fw, forward: fw === 'unknown' ? 'unknown' : await dumpNftRules(NFT_FAMILY[f], 'filter', 'FORWARD') });
  }
  return looks;
}

/**
 * The common ADD with no process: the pod's rules of every family appended over nfnetlink in
 * one transaction, where the node's iptables-nft is seen to write them the same way
 * (planIptablesFirewallNetlinkAppend). One transaction for both families because the ruleset's
 * generation is the netns's, not a family's: a batch per family would refuse the other.
 * 'unplanned' when that does not apply, 'refused' when the kernel refused the batch (the
 * ruleset changed since the look); the caller then goes the per-family way.
 */
async function appendOverNetlink(t: FirewallTarget, looks: ReadonlyMap<Family, Look>, generation: number): Promise<'done' | 'unplanned' | 'refused'> {
  const messages: NonNullable<ReturnType<typeof planIptablesFirewallNetlinkAppend>> = [];
  for (const f of familiesOf(t)) {
    const look = looks.get(f);
    const planned =
      look === undefined || look.fw === 'unknown' || look.forward === 'unknown'
        ? undefined
        : planIptablesFirewallNetlinkAppend(t, f, { forward: look.forward, fw: look.fw });
    if (planned === undefined) return 'unplanned';
    messages.push(...planned);
  }
  return (await nftBatchIfUnchanged('NFT_MSG_NEWRULE', messages, generation)) ? 'done' : 'refused';
}

/**
 * The common ADD in one process instead of two (planIptablesFirewallAppend): where iptables is
 * iptables-nft, its rules are looked at over nfnetlink (`fw`) in place of an iptables-save.
 * False when that does not apply (iptables-legacy, a rule already names the address) or the
 * transaction was refused (a shared rule is missing): the caller reads and plans.
 */
async function appendUnread(family: Family, t: FirewallTarget, fw: Dump | undefined): Promise<boolean> {
  const text = planIptablesFirewallAppend(t, family);
  if (text === undefined || fw === undefined || fw === 'unknown' || chainNamesAddresses(fw, t, family)) return false;
  try {
    await restore(family, text);
    return true;
  } catch {
    return false;
  }
}

export async function teardownFirewallIptables(t: FirewallTarget, families: readonly Family[]): Promise<void> {
  if (await deleteOverNetlink(t, families)) return;
  await settleAll(
    families.map(async (f) => {
      const blind = planIptablesFirewallDelete(t, f);
      if (blind === undefined) return;
      try {
        return await restore(f, blind);
      } catch {
        // some of them are gone already: delete what is left
      }
      await readPlanApply(f, 'filter', (saved) => planIptablesFirewallTeardown(saved, t, f));
    }),
  );
}

/**
 * The common DEL with no process: where every family's iptables is iptables-nft, the pod's rules
 * found in CNI-FORWARD over nfnetlink and deleted by handle, both families in one transaction
 * that the kernel refuses if the ruleset changed since the look (the generation, read first).
 * False when that does not apply (iptables-legacy, a rule names an address in another form) or
 * the batch was refused: the caller runs iptables.
 */
async function deleteOverNetlink(t: FirewallTarget, families: readonly Family[]): Promise<boolean> {
  if (!families.every(iptablesInNftables)) return false;
  const generation = await nftGeneration();
  if (generation === undefined) return false;
  const messages: NonNullable<ReturnType<typeof planIptablesFirewallNetlinkDelete>> = [];
  for (const f of families) {
    const fw = await dumpNftRules(NFT_FAMILY[f], 'filter', FW_CHAIN);
    const planned = fw === 'unknown' ? undefined : planIptablesFirewallNetlinkDelete(t, f, fw);
    if (planned === undefined) return false;
    messages.push(...planned);
  }
  return messages.length === 0 || nftBatchIfUnchanged('NFT_MSG_DELRULE', messages, generation);
}

export async function checkFirewallIptables(t: FirewallTarget): Promise<void> {
  for (const f of familiesOf(t)) {
    const problem = checkIptablesFirewall(await readTable(f, 'filter'), t, f);
    if (problem !== undefined) throw new Error(`ipv${f} firewall rules: ${problem}`);
  }
}
