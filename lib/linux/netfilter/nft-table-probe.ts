// Whether an nftables table exists, asked of the kernel over nfnetlink (NFT_MSG_GETTABLE) in
// ~0.1 ms, where `nft list table` is a process start, ~10 ms. Teardowns that must look at a
// table which usually is not there (bridge DEL cleans both masquerade backends) ask first.
import { encodeNfgenmsg, NETLINK_NETFILTER } from '../conntrack-codec.ts';
import { attrString, encodeAttrs } from '../nl-codec.ts';
import { timed } from '../../cni-spec/timing.ts';
import { nl, isNetlinkError } from '../netlink-error.ts';
import { NlSocket } from '../nl-socket.ts';

const NFNL_SUBSYS_NFTABLES = 10;
const NFT_MSG_GETTABLE = 1;
const NFTA_TABLE_NAME = 1;
/** include/uapi/linux/netfilter.h NFPROTO_* */
export const NFPROTO: Record<NftFamily, number> = { inet: 1, ip: 2, ip6: 10, bridge: 7 };

export type NftFamily = 'inet' | 'ip' | 'ip6' | 'bridge';

/** The GETTABLE request's payload (pure): nfgenmsg of the family, then the table's name. */
export function encodeGetTable(family: NftFamily, name: string): Buffer {
  return Buffer.concat([encodeNfgenmsg(NFPROTO[family]), encodeAttrs([attrString(NFTA_TABLE_NAME, name)])]);
}

/**
 * True when the table exists, false when the kernel says it does not (ENOENT). Any other
 * answer (nf_tables not loaded, no permission) is 'unknown': the caller then looks the slow way.
 */
export async function nftTableExists(family: NftFamily, name: string): Promise<boolean | 'unknown'> {
  let sock: NlSocket;
  try {
    sock = timed('netlink', () => NlSocket.open(NETLINK_NETFILTER));
  } catch {
    return 'unknown';
  }
  try {
    await nl('NFT_MSG_GETTABLE', () => sock.request((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETTABLE, encodeGetTable(family, name)));
    return true;
  } catch (err) {
    return isNetlinkError(err, 'ENOENT') ? false : 'unknown';
  } finally {
    sock.close();
  }
}
