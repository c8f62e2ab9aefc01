// Deleting conntrack entries through ctnetlink (NETLINK_NETFILTER), in the netns this process
// runs in, without any tool: dump the family's table, keep the entries whose original tuple
// is `protocol` to one of `ports`, delete each by that tuple (what the reference's netlink
// library does for portmap). Our socket (nl-socket.ts) speaks any netlink protocol; the messages
// come from conntrack-codec.ts.
import { readFileSync } from 'node:fs';
import {
  AF_INET,
  AF_INET6,
  ctMsgType,
  decodeCtEntry,
  encodeCtDelete,
  encodeCtDumpRequest,
  IPCTNL_MSG_CT_DELETE,
  IPCTNL_MSG_CT_GET,
  IPCTNL_MSG_CT_NEW,
  NETLINK_NETFILTER,
} from './conntrack-codec.ts';
import { NLM_F_DUMP, NlSocket } from './nl-socket.ts';
import { timed } from '../cni-spec/timing.ts';
import { isNetlinkError, nl } from './netlink-error.ts';

/**
 * Deletes the entries of `protocol` (IPPROTO_*) whose original destination port is in `ports`,
 * in each of `families`, over one socket; returns how many went.
 */
export async function deleteConntrackByDstPort(families: readonly (4 | 6)[], protocol: number, ports: ReadonlySet<number>): Promise<number> {
  if (ports.size === 0 || families.length === 0) return 0;
  if (conntrackCount() === 0) return 0;
  // Its first use in a process loads the addon: netlink time too.
  const sock = timed('netlink', () => NlSocket.open(NETLINK_NETFILTER));
  try {
    let deleted = 0;
    for (const family of families) deleted += await deleteInFamily(sock, family === 4 ? AF_INET : AF_INET6, protocol, ports);
    return deleted;
  } finally {
    sock.close();
  }
}

/**
 * How many conntrack entries this netns holds (nf_conntrack_count is per netns), or undefined
 * when the kernel does not say (nf_conntrack not loaded). A dump walks the whole hash table,
 * shared by every netns (262144 buckets here: 10–30 ms per family), even when this netns has
 * no entry at all; then there is nothing to delete and no reason to walk it.
 */
function conntrackCount(): number | undefined {
  try {
    return Number.parseInt(readFileSync('/proc/sys/net/netfilter/nf_conntrack_count', 'latin1'), 10);
  } catch {
    return undefined;
  }
}

async function deleteInFamily(sock: NlSocket, af: number, protocol: number, ports: ReadonlySet<number>): Promise<number> {
  const msgs = await nl('IPCTNL_MSG_CT_GET', () => sock.request(ctMsgType(IPCTNL_MSG_CT_GET), encodeCtDumpRequest(af), NLM_F_DUMP));
  const doomed = msgs
    .filter((m) => m.type === ctMsgType(IPCTNL_MSG_CT_NEW))
    .map((m) => decodeCtEntry(Buffer.from(m.data)))
    .filter((e) => e !== undefined && e.protocol === protocol && ports.has(e.dstPort));
  let deleted = 0;
  for (const e of doomed) {
    try {
      await nl('IPCTNL_MSG_CT_DELETE', () => sock.request(ctMsgType(IPCTNL_MSG_CT_DELETE), encodeCtDelete(e!)));
      deleted++;
    } catch (err) {
      // Expired between the dump and the delete: what we wanted.
      if (!isNetlinkError(err, 'ENOENT')) throw err;
    }
  }
  return deleted;
}
