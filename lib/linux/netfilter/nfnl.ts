// Talking to nf_tables over nfnetlink from the current netns: one request (a GET or a dump), or
// one batch of changes applied as a transaction. Each opens its own socket and closes it, as
// a plugin asks only a handful of times. Kernel errors come back as NetlinkError.
import { NETLINK_NETFILTER, NlSocket, type RawMessage } from '../nl-socket.ts';
import { nl } from '../netlink-error.ts';

export const NFNL_SUBSYS_NFTABLES = 10;

export type NftFamily = 'inet' | 'ip' | 'ip6' | 'bridge';
/** include/uapi/linux/netfilter.h NFPROTO_* */
export const NFPROTO: Record<NftFamily, number> = { inet: 1, ip: 2, ip6: 10, bridge: 7 };

/** The kernel's answer to nf_tables message `msg` (NFT_MSG_*) with `flags` (NLM_F_DUMP for a dump). */
export function nftRequest(op: string, msg: number, payload: Uint8Array, flags = 0): Promise<RawMessage[]> {
  return nl(op, () => {
    const sock = NlSocket.open(NETLINK_NETFILTER);
    try {
      return sock.request((NFNL_SUBSYS_NFTABLES << 8) | msg, payload, flags);
    } finally {
      sock.close();
    }
  });
}

/** nf_tables messages applied as one transaction (NlSocket.batch). */
export function nftBatch(op: string, messages: readonly { msg: number; flags: number; payload: Uint8Array }[]): Promise<void> {
  return nl(op, () => {
    const sock = NlSocket.open(NETLINK_NETFILTER);
    try {
      sock.batch(
        NFNL_SUBSYS_NFTABLES,
        messages.map((m) => ({ type: (NFNL_SUBSYS_NFTABLES << 8) | m.msg, flags: m.flags, payload: m.payload })),
      );
    } finally {
      sock.close();
    }
  });
}
