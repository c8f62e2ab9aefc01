// Whether an nftables table exists, asked of the kernel over nfnetlink (NFT_MSG_GETTABLE) in
// ~0.1 ms, where `nft list table` is a process start, ~10 ms. Teardowns that must look at a
// table which usually is not there (bridge DEL cleans both masquerade backends) ask first.
import { encodeNfgenmsg } from '../../conntrack-codec.ts';
import { attrString, encodeAttrs } from '../../nl-codec.ts';
import { isNetlinkError } from '../../netlink-error.ts';
import { NFPROTO, nftRequest, type NftFamily } from './nfnl.ts';

const NFT_MSG_GETTABLE = 1;
const NFTA_TABLE_NAME = 1;

/** The GETTABLE request's payload (pure): nfgenmsg of the family, then the table's name. */
export function encodeGetTable(family: NftFamily, name: string): Buffer {
  return Buffer.concat([encodeNfgenmsg(NFPROTO[family]), encodeAttrs([attrString(NFTA_TABLE_NAME, name)])]);
}

/**
 * True when the table exists, false when the kernel says it does not (ENOENT). Any other
 * answer (nf_tables not loaded, no permission) is 'unknown': the caller then looks the slow way.
 */
export async function nftTableExists(family: NftFamily, name: string): Promise<boolean | 'unknown'> {
  try {
    await nftRequest('NFT_MSG_GETTABLE', NFT_MSG_GETTABLE, encodeGetTable(family, name));
    return true;
  } catch (err) {
    return isNetlinkError(err, 'ENOENT') ? false : 'unknown';
  }
}
