// ifb devices of the bandwidth plugin: created up with the host veth's MTU and queue length,
// labelled with an alias naming their owner so GC can tell whose they are.
import { deleteLink, getLinkByIndex, type LinkInfo } from '../link.ts';
import { nl } from '../netlink-error.ts';
import type { Netns } from '../netns.ts';
import { toLinkInfo } from '../link-parse.ts';
import { createIfb } from './tc.ts';

export interface IfbLink extends LinkInfo {
  /** IFLA_IFALIAS; '' when none */
  alias: string;
}

/** The MTU and transmit queue length of a link (the reference copies both to its ifb). */
export async function getLinkQueue(ns: Netns, index: number): Promise<{ mtu: number; txqlen: number } | undefined> {
  const [msg] = await nl('RTM_GETLINK', ns.rtnl.getLink({ index }));
  return msg && { mtu: msg.attrs.mtu ?? 0, txqlen: msg.attrs.txqlen ?? 0 };
}

/**
 * Creates the ifb and sets its alias (the kernel ignores IFLA_IFALIAS in a create request,
 * so it takes a second one). Resolves to the new link.
 */
export async function setupIfb(ns: Netns, o: { name: string; mtu: number; txqlen?: number; alias?: string }): Promise<LinkInfo> {
  await createIfb(ns, { name: o.name, mtu: o.mtu, ...(o.txqlen ? { txqlen: o.txqlen } : {}) });
  const [msg] = await nl('RTM_GETLINK', ns.rtnl.getLink({}, { ifname: o.name }));
  if (!msg) throw new Error(`ifb ${o.name} vanished after creation`);
  const link = toLinkInfo(msg);
  try {
    if (o.alias) await nl('RTM_SETLINK', ns.rtnl.setLink({ index: link.index }, { ifalias: o.alias }));
    return (await getLinkByIndex(ns, link.index)) ?? link;
  } catch (err) {
    // half made: the caller's undo only knows a finished ifb
    await deleteLink(ns, link.index).catch(() => undefined);
    throw err;
  }
}

/** Every ifb of the namespace with its alias. */
export async function listIfbs(ns: Netns): Promise<IfbLink[]> {
  const msgs = await nl('RTM_GETLINK', ns.rtnl.getLinks());
  return msgs.map((m) => ({ ...toLinkInfo(m), alias: (m.attrs.ifalias ?? '').replace(/\0+$/, '') })).filter((l) => l.kind === 'ifb');
}
