// The comment `nft` stores in a rule's or a set element's userdata (NFTA_RULE_USERDATA,
// NFTA_SET_ELEM_USERDATA): a list of TLVs (type byte, length byte, value), the comment being
// type 0 (libnftnl NFTNL_UDATA_RULE_COMMENT and NFTNL_UDATA_SET_ELEM_COMMENT) holding the text
// with its NUL. Shared by every reader over nfnetlink, so they all see what `nft list` shows.

export const UDATA_COMMENT = 0;

/** A comment's text from userdata TLVs; undefined when there is none. */
export function udataComment(userdata: Buffer | undefined): string | undefined {
  for (let off = 0; userdata !== undefined && off + 2 <= userdata.length; off += 2 + userdata[off + 1]!) {
    if (userdata[off] !== UDATA_COMMENT) continue;
    const text = userdata.subarray(off + 2, Math.min(off + 2 + userdata[off + 1]!, userdata.length));
    const nul = text.indexOf(0);
    return text.subarray(0, nul < 0 ? text.length : nul).toString('utf8');
  }
  return undefined;
}
