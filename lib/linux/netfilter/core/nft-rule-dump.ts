// The rules of one nftables chain, read from the kernel over nfnetlink (an NFT_MSG_GETRULE dump)
// in well under a millisecond, where `nft list` or `iptables-save` is a process start and a parse,
// 3-10 ms. iptables-nft keeps its rules in nftables too, so the same read sees those. Only what a
// caller compares is decoded: each expression's name and, for the kinds our checks look at
// (cmp, immediate, lookup), their operands.
import { encodeNfgenmsg } from '../../conntrack-codec.ts';
import { attrString, attrText, decodeAttrs, encodeAttrs, findAttr } from '../../nl-codec.ts';
import { NLM_F_DUMP } from '../../nl-socket.ts';
import {
  NFT_MSG_GETRULE,
  NFTA_CMP_DATA,
  NFTA_DATA_VALUE,
  NFTA_DATA_VERDICT,
  NFTA_EXPR_DATA,
  NFTA_EXPR_NAME,
  NFTA_IMMEDIATE_DATA,
  NFTA_LIST_ELEM,
  NFTA_RULE_CHAIN,
  NFTA_RULE_EXPRESSIONS,
  NFTA_RULE_HANDLE,
  NFTA_RULE_TABLE,
  NFTA_RULE_USERDATA,
  NFTA_VERDICT_CHAIN,
  NFTA_VERDICT_CODE,
} from './nft-attrs.ts';
import { NFPROTO, nftRequest, type NftFamily } from './nfnl.ts';
import { udataComment } from './nft-udata.ts';

// include/uapi/linux/netfilter/nf_tables.h
const NFTA_LOOKUP_SET = 1;

/** Verdict codes (include/uapi/linux/netfilter.h NF_*, nf_tables.h NFT_*). */
export const VERDICT = { drop: 0, accept: 1, continue: -1, return: -5, jump: -3, goto: -4 } as const;

export type NftExpr =
  | { readonly name: 'cmp'; readonly value: Buffer }
  | { readonly name: 'immediate'; readonly verdict?: { readonly code: number; readonly chain?: string } }
  | { readonly name: 'lookup'; readonly set: string }
  | { readonly name: string };

export interface NftKernelRule {
  readonly table: string;
  readonly chain: string;
  /** what deletes it (NFTA_RULE_HANDLE); undefined if the kernel sent none */
  readonly handle: bigint | undefined;
  /** the comment `nft` stored with it (NFTA_RULE_USERDATA), as `nft list` shows it */
  readonly comment?: string;
  readonly exprs: readonly NftExpr[];
  /** each expression as the kernel sent it (an NFTA_LIST_ELEM's payload), for byte compares */
  readonly elems: readonly Buffer[];
}

/** The dump request's payload (pure): nfgenmsg of the family, the table, the chain. */
export function encodeGetRules(family: NftFamily, table: string, chain: string): Buffer {
  return Buffer.concat([encodeNfgenmsg(NFPROTO[family]), encodeAttrs([attrString(NFTA_RULE_TABLE, table), attrString(NFTA_RULE_CHAIN, chain)])]);
}

function decodeVerdict(data: Buffer | undefined): { code: number; chain?: string } | undefined {
  const verdict = data && findAttr(data, NFTA_DATA_VERDICT);
  if (verdict === undefined) return undefined;
  const code = findAttr(verdict, NFTA_VERDICT_CODE);
  if (code === undefined || code.length < 4) return undefined;
  const chain = findAttr(verdict, NFTA_VERDICT_CHAIN);
  return { code: code.readInt32BE(0), ...(chain !== undefined && { chain: attrText(chain) }) };
}

function decodeExpr(elem: Buffer): NftExpr {
  const name = attrText(findAttr(elem, NFTA_EXPR_NAME));
  const data = findAttr(elem, NFTA_EXPR_DATA) ?? Buffer.alloc(0);
  switch (name) {
    case 'cmp': {
      const cmpData = findAttr(data, NFTA_CMP_DATA);
      return { name, value: (cmpData && findAttr(cmpData, NFTA_DATA_VALUE)) ?? Buffer.alloc(0) };
    }
    case 'immediate': {
      const verdict = decodeVerdict(findAttr(data, NFTA_IMMEDIATE_DATA));
      return verdict === undefined ? { name } : { name, verdict };
    }
    case 'lookup':
      return { name, set: attrText(findAttr(data, NFTA_LOOKUP_SET)) };
    default:
      return { name };
  }
}

/** One NFT_MSG_NEWRULE message of the dump (its payload after the netlink header), decoded (pure). */
export function decodeRule(payload: Buffer): NftKernelRule {
  const attrs = payload.subarray(4); // after the nfgenmsg
  const list = findAttr(attrs, NFTA_RULE_EXPRESSIONS);
  const elems =
    list === undefined
      ? []
      : decodeAttrs(list)
          .filter((a) => a.type === NFTA_LIST_ELEM)
          .map((a) => a.value);
  // Decoded on first use: a chain of many pods is mostly compared as bytes (elems).
  let exprs: NftExpr[] | undefined;
  const handle = findAttr(attrs, NFTA_RULE_HANDLE);
  const comment = udataComment(findAttr(attrs, NFTA_RULE_USERDATA));
  return {
    table: attrText(findAttr(attrs, NFTA_RULE_TABLE)),
    chain: attrText(findAttr(attrs, NFTA_RULE_CHAIN)),
    handle: handle !== undefined && handle.length >= 8 ? handle.readBigUInt64BE(0) : undefined,
    ...(comment !== undefined && { comment }),
    get exprs() {
      return (exprs ??= elems.map(decodeExpr));
    },
    elems,
  };
}

/**
 * The chain's rules in order, asked of the current netns's kernel. A dump answers an absent
 * table or chain with no rules at all, so "none" does not tell the chain exists; callers guard
 * for that in what they write. 'unknown' when nfnetlink cannot be asked (nf_tables not loaded,
 * no permission, a kernel error): the caller then looks the slow way.
 */
export async function dumpNftRules(family: NftFamily, table: string, chain: string): Promise<NftKernelRule[] | 'unknown'> {
  try {
    const messages = await nftRequest('NFT_MSG_GETRULE', NFT_MSG_GETRULE, encodeGetRules(family, table, chain), NLM_F_DUMP);
    // Older kernels dump every rule of the family, whatever the filter asked.
    return messages.map((m) => decodeRule(m.data)).filter((r) => r.table === table && r.chain === chain);
  } catch {
    return 'unknown';
  }
}
