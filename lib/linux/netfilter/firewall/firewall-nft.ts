// The firewall nftables executor. ADD is one `nft -f -` (plus one read for same-bridge), or,
// when `forward` (looked at over nfnetlink) shows the skeleton in place, the elements alone
// added over nfnetlink, no process at all. DEL and GC look at the sets' elements over nfnetlink
// and delete theirs in one transaction, no process either; where nfnetlink cannot answer, or the
// ruleset changed in between, they read the table with `nft` and delete in one `nft -f -`.
import { requireTool, runTool, ToolError } from '../core/exec.ts';
import { applyNft } from '../core/nft.ts';
import { nftBatchIfUnchanged, nftGeneration } from '../core/nfnl.ts';
import { dumpNftRules } from '../core/nft-rule-dump.ts';
import { dumpSetElems, replaceSetElems, setElemDeletes, type SetElem } from '../core/nft-set-elems.ts';
import {
  checkNftFirewall,
  EMPTY_FW_STATE,
  FW_NFT_TABLE,
  FW_SETS,
  firewallNftKey,
  firewallSetElems,
  gcPick,
  isFirewallSkeleton,
  parseFirewallNft,
  pickSetElems,
  planNftFirewallDelete,
  planNftFirewallSetup,
  teardownPick,
  type ElemPick,
  type FwNftState,
} from './firewall-nft-plan.ts';
import type { FirewallTarget } from './firewall-spec.ts';

async function readTable(): Promise<FwNftState> {
  const nft = requireTool('nft', 'nftables');
  try {
    return parseFirewallNft(await runTool(nft, ['-j', 'list', 'table', 'inet', FW_NFT_TABLE]));
  } catch (err) {
    if (err instanceof ToolError && /No such file or directory/.test(err.stderr)) return EMPTY_FW_STATE;
    throw err;
  }
}

/** Read (when it matters), plan, apply; once more from a fresh read if the apply is refused. */
async function readPlanApply(plan: (state: FwNftState) => string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const script = plan(await readTable());
    if (script === undefined) return;
    try {
      return await applyNft(script);
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}

export async function setupFirewallNft(t: FirewallTarget): Promise<void> {
  try {
    if (t.ingressPolicy === 'same-bridge') await readPlanApply((state) => planNftFirewallSetup(t, state));
    else if (!(await addElementsOnly(t))) await applyNft(planNftFirewallSetup(t));
  } catch (err) {
    throw new Error(`unable to set up nftables firewall rules: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The common ADD, on a node where an earlier one made the skeleton: only the elements, over
 * nfnetlink like the look at `forward` before them (no `nft` process at all). False when the
 * skeleton is not (all) there, or the kernel refused the elements (the table went away
 * meanwhile): the full script follows.
 */
async function addElementsOnly(t: FirewallTarget): Promise<boolean> {
  const rules = await dumpNftRules('inet', FW_NFT_TABLE, 'forward');
  if (rules === 'unknown' || !isFirewallSkeleton(rules)) return false;
  try {
    await replaceSetElems('inet', FW_NFT_TABLE, firewallSetElems(t));
    return true;
  } catch {
    return false;
  }
}

export function teardownFirewallNft(t: Pick<FirewallTarget, 'network' | 'ifname' | 'containerId'>): Promise<void> {
  return deleteElems(teardownPick(firewallNftKey(t)));
}

export async function checkFirewallNft(t: FirewallTarget): Promise<void> {
  const problem = checkNftFirewall(await readTable(), t);
  if (problem !== undefined) throw new Error(problem);
}

export function gcFirewallNft(network: string, validKeys: ReadonlySet<string>): Promise<void> {
  return deleteElems(gcPick(network, validKeys));
}

/** DEL and GC: the elements `pick` chooses, over nfnetlink where it answers, else through `nft`. */
async function deleteElems(pick: ElemPick): Promise<void> {
  if (await deleteElemsOverNetlink(pick)) return;
  await readPlanApply((state) => planNftFirewallDelete(state, pick));
}

/**
 * The elements of both sets looked at over nfnetlink, and those `pick` chooses deleted in one
 * transaction that the kernel refuses if the ruleset changed since the look (the generation,
 * read first). No table or set: nothing to delete. False when nfnetlink cannot answer or the
 * batch was refused: the caller reads with `nft`.
 */
async function deleteElemsOverNetlink(pick: ElemPick): Promise<boolean> {
  const generation = await nftGeneration();
  if (generation === undefined) return false;
  const sets: { set: string; elems: SetElem[] }[] = [];
  for (const set of FW_SETS) {
    const elems = await dumpSetElems('inet', FW_NFT_TABLE, set);
    if (elems === 'unknown') return false;
    if (elems !== 'absent') sets.push({ set, elems });
  }
  const messages = setElemDeletes('inet', FW_NFT_TABLE, pickSetElems(sets, pick));
  return messages.length === 0 || nftBatchIfUnchanged('NFT_MSG_DELSETELEM', messages, generation);
}
