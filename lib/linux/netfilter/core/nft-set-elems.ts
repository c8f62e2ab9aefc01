// An nftables set's elements over nfnetlink: putting some in place, listing them, deleting some, with the
// messages `nft add element`, `nft list set` and `nft delete element` send, each change in one
// batch (one transaction), without an nft process (~5 ms). Only for sets that exist: the caller
// has seen them referenced by the rules of its table (firewall/firewall-nft.ts).
//
// Each element is its key and, as `nft` stores a comment, a userdata TLV (libnftnl
// NFTNL_UDATA_SET_ELEM_COMMENT: type 0, length, the text with its NUL), so `nft list` and our
// readers of its JSON see the same comment either way.
import { attrBytes, attrNest, attrString, decodeAttrs, encodeAttrs, findAttr } from '../../nl-codec.ts';
import { encodeNfgenmsg } from '../../conntrack-codec.ts';
import { isNetlinkError } from '../../netlink-error.ts';
import { NLM_F_CREATE } from '../../nl-request.ts';
import { NLM_F_DUMP } from '../../nl-socket.ts';
import { NFTA_DATA_VALUE, NFTA_LIST_ELEM } from './nft-attrs.ts';
import { NFPROTO, nftBatch, nftRequest, type NftFamily } from './nfnl.ts';
import { UDATA_COMMENT, udataComment } from './nft-udata.ts';

const NFT_MSG_NEWSETELEM = 12;
const NFT_MSG_GETSETELEM = 13;
const NFT_MSG_DELSETELEM = 14;

type BatchMessage = { msg: number; flags: number; payload: Buffer };

// include/uapi/linux/netfilter/nf_tables.h
const NFTA_SET_ELEM_LIST_TABLE = 1;
const NFTA_SET_ELEM_LIST_SET = 2;
const NFTA_SET_ELEM_LIST_ELEMENTS = 3;
const NFTA_SET_ELEM_KEY = 1;
const NFTA_SET_ELEM_USERDATA = 6;
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
  return Buffer.concat([Buffer.from([UDATA_COMMENT, text.length]), text]);
}

/**
 * The NFT_MSG_NEWSETELEM or NFT_MSG_DELSETELEM payload (pure) that names `elems` of `table`'s
 * `set`: what `nft add element` writes (less the set id it adds for sets made in the same
 * batch), and, with keys alone, what `nft delete element` writes.
 */
export function encodeSetElems(family: NftFamily, table: string, set: string, elems: readonly SetElem[]): Buffer {
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
 * Puts the elements of each set given in place, all in one transaction, each replacing an
 * element of the same key whatever its comment. NLM_F_CREATE without NLM_F_EXCL (what `nft add
 * element` sends) keeps an existing element as it is, comment included, and the kernel has no
 * replace for elements; so per set: add the keys (a no-op for those there), delete them, add
 * them with their comments. No moment without the element: the transaction commits as one.
 * Throws a NetlinkError when the kernel refuses (no such table or set: ENOENT).
 */
export function replaceSetElems(family: NftFamily, table: string, sets: readonly { set: string; elems: readonly SetElem[] }[]): Promise<void> {
  const messages = setElemReplaces(family, table, sets);
  return messages.length === 0 ? Promise.resolve() : nftBatch('NFT_MSG_NEWSETELEM', messages);
}

/** replaceSetElems's batch messages (pure): per set with elements, add the keys, delete them, add the elements. */
export function setElemReplaces(family: NftFamily, table: string, sets: readonly { set: string; elems: readonly SetElem[] }[]): BatchMessage[] {
  return sets
    .filter((s) => s.elems.length > 0)
    .flatMap((s) => {
      const keys = s.elems.map((e) => ({ key: e.key }));
      return [
        { msg: NFT_MSG_NEWSETELEM, flags: NLM_F_CREATE, payload: encodeSetElems(family, table, s.set, keys) },
        { msg: NFT_MSG_DELSETELEM, flags: 0, payload: encodeSetElems(family, table, s.set, keys) },
        { msg: NFT_MSG_NEWSETELEM, flags: NLM_F_CREATE, payload: encodeSetElems(family, table, s.set, s.elems) },
      ];
    });
}

/** The NFT_MSG_GETSETELEM dump request's payload (pure): nfgenmsg of the family, the table, the set. */
export function encodeGetSetElems(family: NftFamily, table: string, set: string): Buffer {
  return Buffer.concat([encodeNfgenmsg(NFPROTO[family]), encodeAttrs([attrString(NFTA_SET_ELEM_LIST_TABLE, table), attrString(NFTA_SET_ELEM_LIST_SET, set)])]);
}

/** The elements of one message of a GETSETELEM dump (its payload after the netlink header), decoded (pure). */
export function decodeSetElems(payload: Buffer): SetElem[] {
  const list = findAttr(payload.subarray(4), NFTA_SET_ELEM_LIST_ELEMENTS);
  if (list === undefined) return [];
  return decodeAttrs(list)
    .filter((a) => a.type === NFTA_LIST_ELEM)
    .flatMap((a) => {
      const keyAttr = findAttr(a.value, NFTA_SET_ELEM_KEY);
      const key = keyAttr && findAttr(keyAttr, NFTA_DATA_VALUE);
      if (key === undefined) return [];
      const comment = udataComment(findAttr(a.value, NFTA_SET_ELEM_USERDATA));
      return [{ key: Buffer.from(key), ...(comment !== undefined && { comment }) }];
    });
}

/**
 * The set's elements, asked of the current netns's kernel. 'absent' when the kernel has no such
 * table or set (ENOENT); 'unknown' when nfnetlink cannot be asked (nf_tables not loaded, no
 * permission, another error): the caller then reads the slow way.
 */
export async function dumpSetElems(family: NftFamily, table: string, set: string): Promise<SetElem[] | 'absent' | 'unknown'> {
  try {
    const messages = await nftRequest('NFT_MSG_GETSETELEM', NFT_MSG_GETSETELEM, encodeGetSetElems(family, table, set), NLM_F_DUMP);
    return messages.flatMap((m) => decodeSetElems(m.data));
  } catch (err) {
    return isNetlinkError(err, 'ENOENT') ? 'absent' : 'unknown';
  }
}

/** The batch messages that delete the given keys of each set (pure); none for a set without keys. */
export function setElemDeletes(family: NftFamily, table: string, sets: readonly { set: string; keys: readonly Uint8Array[] }[]): BatchMessage[] {
  return sets
    .filter((s) => s.keys.length > 0)
    .map((s) => ({
      msg: NFT_MSG_DELSETELEM,
      flags: 0,
      payload: encodeSetElems(
        family,
        table,
        s.set,
        s.keys.map((key) => ({ key })),
      ),
    }));
}
