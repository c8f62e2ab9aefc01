// The nft executor: a read is `nft -j list <what>`, a write is one `nft -f -` transaction.
import { requireTool, runTool, ToolError } from './exec.ts';
import { EMPTY_LISTING, parseNftListing, type NftListing } from './nft-json.ts';

const BACKEND = 'nftables';

/** Lists e.g. ['chain', 'inet', 'cni_plugins_masquerade', 'masq_checks']; a missing table or chain is an empty listing. */
export async function listNft(what: readonly string[]): Promise<NftListing> {
  const nft = requireTool('nft', BACKEND);
  try {
    return parseNftListing(await runTool(nft, ['-j', 'list', ...what]));
  } catch (err) {
    if (err instanceof ToolError && /No such file or directory/.test(err.stderr)) return EMPTY_LISTING;
    throw err;
  }
}

/** Applies a script as one atomic transaction. */
export async function applyNft(script: string): Promise<void> {
  const nft = requireTool('nft', BACKEND);
  await runTool(nft, ['-f', '-'], script);
}

/**
 * Read, plan, apply; once more from a fresh read if the apply fails: a process outside our
 * lock (the Go plugin) may have deleted a rule whose handle the plan names. Several listings
 * (e.g. two chains) are read in parallel and planned as one.
 */
export async function readPlanApply(
  what: readonly string[] | readonly (readonly string[])[],
  plan: (listing: NftListing) => string | undefined,
): Promise<void> {
  const whats = (typeof what[0] === 'string' ? [what] : what) as readonly (readonly string[])[];
  for (let attempt = 1; ; attempt++) {
    const listings = await Promise.all(whats.map(listNft));
    const script = plan({ chains: listings.flatMap((l) => l.chains), rules: listings.flatMap((l) => l.rules) });
    if (script === undefined) return;
    try {
      return await applyNft(script);
    } catch (err) {
      if (attempt >= 2) throw err;
    }
  }
}
