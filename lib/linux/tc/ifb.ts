// ifb devices of the bandwidth plugin: created up with the host veth's MTU and queue length,
// labelled with an alias naming their owner so GC can tell whose they are.
import { deleteLink, type LinkInfo } from '../link.ts';
import { isNetlinkError, nl } from '../netlink-error.ts';
import type { Netns } from '../netns.ts';
import { toLinkInfo } from '../link-parse.ts';
import { createIfb } from './tc.ts';

export interface IfbLink extends LinkInfo {
  /** IFLA_IFALIAS; '' when none */
  alias: string;
}

/** A link with its transmit queue length (the reference copies MTU and queue length to its ifb). */
export async function getLinkWithQueue(ns: Netns, index: number): Promise<(LinkInfo & { txqlen: number }) | undefined> {
  try {
    const [msg] = await nl('RTM_GETLINK', () => ns.rtnl.getLink({ index }));
    return msg && { ...toLinkInfo(msg), txqlen: msg.attrs.txqlen ?? 0 };
  } catch (err) {
    if (isNetlinkError(err, 'ENODEV')) return undefined;
    throw err;
  }
}

/**
 * Creates the ifb and sets its alias (the kernel ignores IFLA_IFALIAS in a create request,
 * so it takes a second one). Resolves to the new link.
 */
export async function setupIfb(ns: Netns, o: { name: string; mtu: number; txqlen?: number; alias?: string }): Promise<LinkInfo> {
  await createIfb(ns, { name: o.name, mtu: o.mtu, ...(o.txqlen ? { txqlen: o.txqlen } : {}) });
  const [msg] = await nl('RTM_GETLINK', () => ns.rtnl.getLink({}, { ifname: o.name }));
  if (!msg) throw new Error(`ifb ${o.name} vanished after creation`);
  const link = toLinkInfo(msg);
  try {
    // The alias changes nothing else of the link: the answer above stays true.
    const alias = o.alias;
    if (alias) await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index: link.index }, { ifalias: alias }));
    return link;
  } catch (err) {
    // half made: the caller's undo only knows a finished ifb
    await deleteLink(ns, link.index).catch(() => undefined);
    throw err;
  }
}

/** Every ifb of the namespace with its alias. */
export async function listIfbs(ns: Netns): Promise<IfbLink[]> {
  const msgs = await nl('RTM_GETLINK', () => ns.rtnl.getLinks());
  return msgs.map((m) => ({ ...toLinkInfo(m), alias: (m.attrs.ifalias ?? '').replace(/\0+$/, '') })).filter((l) => l.kind === 'ifb');
}
