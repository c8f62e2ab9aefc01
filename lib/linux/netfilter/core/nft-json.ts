// Reading `nft -j list …` output: the chains and rules of a listing, with their handles
// (rules can only be deleted by handle) and comments (how we recognise our own rules).

export interface NftChain {
  readonly family: string;
  readonly table: string;
  readonly name: string;
  readonly handle: number;
  /** base chains only */
  readonly type?: string;
  readonly hook?: string;
}

export interface NftRule {
  readonly family: string;
  readonly table: string;
  readonly chain: string;
  readonly handle: number;
  readonly comment: string | undefined;
  /** the rule's statements as nft prints them in JSON, re-serialised (for comparing) */
  readonly expr: string;
}

export interface NftListing {
  readonly chains: readonly NftChain[];
  readonly rules: readonly NftRule[];
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function parseNftListing(text: string): NftListing {
  const chains: NftChain[] = [];
  const rules: NftRule[] = [];
  const doc: unknown = JSON.parse(text);
  const items = isObj(doc) && Array.isArray(doc['nftables']) ? doc['nftables'] : [];
  for (const item of items) {
    if (!isObj(item)) continue;
    const c = item['chain'];
    if (isObj(c) && typeof c['handle'] === 'number') {
      const type = str(c['type']);
      const hook = str(c['hook']);
      chains.push({
        family: str(c['family']) ?? '',
        table: str(c['table']) ?? '',
        name: str(c['name']) ?? '',
        handle: c['handle'],
        ...(type !== undefined && { type }),
        ...(hook !== undefined && { hook }),
      });
    }
    const r = item['rule'];
    if (isObj(r) && typeof r['handle'] === 'number') {
      rules.push({
        family: str(r['family']) ?? '',
        table: str(r['table']) ?? '',
        chain: str(r['chain']) ?? '',
        handle: r['handle'],
        comment: str(r['comment']),
        expr: JSON.stringify(r['expr'] ?? null),
      });
    }
  }
  return { chains, rules };
}

export const EMPTY_LISTING: NftListing = { chains: [], rules: [] };
