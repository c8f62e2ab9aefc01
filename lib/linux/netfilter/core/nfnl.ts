// Talking to nf_tables over nfnetlink from the current netns: one request (a GET or a dump), or
// one batch of changes applied as a transaction. Each opens its own socket and closes it, as
// a plugin asks only a handful of times. Kernel errors come back as NetlinkError.
import { NETLINK_NETFILTER, NlSocket, type RawMessage } from '../../nl-socket.ts';
import { nl } from '../../netlink-error.ts';
import { encodeNfgenmsg } from '../../conntrack-codec.ts';
import { attrBe32, encodeAttrs, findAttr } from '../../nl-codec.ts';

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

const NFT_MSG_GETGEN = 16;
const NFTA_GEN_ID = 1;
const NFNL_BATCH_GENID = 1;

/**
 * The ruleset's generation: the kernel counts every committed change. Read before looking at the
 * rules, and passed to nftBatch, it makes "look, then write" one transaction. Undefined when
 * nfnetlink cannot say (nf_tables not loaded, no permission, no generation in the answer): the
 * caller then takes its slow way, as for a look that cannot be made.
 */
export async function nftGeneration(): Promise<number | undefined> {
  const answer = (await nftRequest('NFT_MSG_GETGEN', NFT_MSG_GETGEN, encodeNfgenmsg(0)).catch(() => undefined))?.[0];
  const id = answer && findAttr(answer.data.subarray(4), NFTA_GEN_ID);
  return id === undefined || id.length < 4 ? undefined : id.readUInt32BE(0);
}

/**
 * nf_tables messages applied as one transaction (NlSocket.batch). With `generation`
 * (nftGeneration), the kernel refuses the whole batch (ERESTART) if the ruleset changed since.
 */
export function nftBatch(op: string, messages: readonly { msg: number; flags: number; payload: Uint8Array }[], generation?: number): Promise<void> {
  return nl(op, () => {
    const sock = NlSocket.open(NETLINK_NETFILTER);
    try {
      sock.batch(
        NFNL_SUBSYS_NFTABLES,
        messages.map((m) => ({ type: (NFNL_SUBSYS_NFTABLES << 8) | m.msg, flags: m.flags, payload: m.payload })),
        op,
        generation === undefined ? undefined : genidAttr(generation),
      );
    } finally {
      sock.close();
    }
  });
}

/**
 * nftBatch guarded by `generation`, for a write planned from a look over nfnetlink: true when
 * the kernel applied it, false when it refused it (the ruleset changed since `generation`, or
 * anything else it refuses). The caller then takes its slow way, which looks again.
 */
export async function nftBatchIfUnchanged(
  op: string,
  messages: readonly { msg: number; flags: number; payload: Uint8Array }[],
  generation: number,
): Promise<boolean> {
  try {
    await nftBatch(op, messages, generation);
    return true;
  } catch {
    return false;
  }
}

/** The batch begin's NFNL_BATCH_GENID attribute (pure). */
export const genidAttr = (generation: number): Buffer => encodeAttrs([attrBe32(NFNL_BATCH_GENID, generation)]);
