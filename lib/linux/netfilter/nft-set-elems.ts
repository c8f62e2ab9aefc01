// Adding elements to an nftables set over nfnetlink: the message `nft add element` sends, in
// one batch (one transaction), without an nft process (~5 ms). Only for sets that exist: the
// caller has seen them referenced by the rules of its table (firewall-nft.ts).
//
// Each element is its key and, as `nft` stores a comment, a userdata TLV (libnftnl
// NFTNL_UDATA_SET_ELEM_COMMENT: type 0, length, the text with its NUL), so `nft list` and our
// readers of its JSON see the same comment either way.
import { attrBytes, attrNest, attrString, encodeAttrs } from '../nl-codec.ts';
import { encodeNfgenmsg } from '../conntrack-codec.ts';
import { NLM_F_CREATE } from '../nl-request.ts';
import { NFTA_DATA_VALUE, NFTA_LIST_ELEM } from './nft-attrs.ts';
import { NFPROTO, nftBatch, type NftFamily } from './nfnl.ts';

const NFT_MSG_NEWSETELEM = 12;

// include/uapi/linux/netfilter/nf_tables.h
const NFTA_SET_ELEM_LIST_TABLE = 1;
const NFTA_SET_ELEM_LIST_SET = 2;
const NFTA_SET_ELEM_LIST_ELEMENTS = 3;
const NFTA_SET_ELEM_KEY = 1;
const NFTA_SET_ELEM_USERDATA = 6;
const UDATA_SET_ELEM_COMMENT = 0;
/** libnftnl's limit on a comment (NFT_USERDATA_MAXLEN is 256 for all of an element's userdata). */
export const MAX_COMMENT_BYTES = 127;

export interface SetElem {
  /** the key in network byte order (an address's 4 or 16 bytes) */
  readonly key: Uint8Array;
  readonly comment?: string;
}

function commentData(comment: string): Buffer {
  const text = Buffer.from(`${comment}\0`, 'utf8');
  if (text.length > MAX_COMMENT_BYTES + 1) throw new RangeError(`set element comment longer than ${MAX_COMMENT_BYTES} bytes`);
  return Buffer.concat([Buffer.from([UDATA_SET_ELEM_COMMENT, text.length]), text]);
}

/**
 * The NFT_MSG_NEWSETELEM payload (pure) that adds `elems` to `table`'s `set`, as `nft add
 * element` writes it (less the set id it adds for sets made in the same batch).
 */
export function encodeNewSetElems(family: NftFamily, table: string, set: string, elems: readonly SetElem[]): Buffer {
  const list = elems.map((e) =>
    attrNest(
      NFTA_LIST_ELEM,
      [
        attrNest(NFTA_SET_ELEM_KEY, [attrBytes(NFTA_DATA_VALUE, e.key)], true),
        ...(e.comment === undefined ? [] : [attrBytes(NFTA_SET_ELEM_USERDATA, commentData(e.comment))]),
      ],
      true,
    ),
  );
  return Buffer.concat([
    encodeNfgenmsg(NFPROTO[family]),
    encodeAttrs([attrString(NFTA_SET_ELEM_LIST_TABLE, table), attrString(NFTA_SET_ELEM_LIST_SET, set), attrNest(NFTA_SET_ELEM_LIST_ELEMENTS, list, true)]),
  ]);
}

/**
 * Adds the elements of each set given, all in one transaction: existing ones stay as they are
 * (NLM_F_CREATE without NLM_F_EXCL, like `nft add element`). Throws a NetlinkError when the
 * kernel refuses (no such table or set: ENOENT).
 */
export function addSetElems(family: NftFamily, table: string, sets: readonly { set: string; elems: readonly SetElem[] }[]): Promise<void> {
  const messages = sets
    .filter((s) => s.elems.length > 0)
    .map((s) => ({ msg: NFT_MSG_NEWSETELEM, flags: NLM_F_CREATE, payload: encodeNewSetElems(family, table, s.set, s.elems) }));
  return messages.length === 0 ? Promise.resolve() : nftBatch('NFT_MSG_NEWSETELEM', messages);
}
