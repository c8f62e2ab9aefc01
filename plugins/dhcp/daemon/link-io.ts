// The pod's interface, for the length of one DHCP exchange: its netns opened by path, the link
// found by name (and brought up: the reference does, since a client on a down link hears
// nothing), a packet socket on it; all closed again after, so nothing is held between exchanges.
import type { Channel } from '../../../lib/dhcp/client.ts';
import { getLinkByName, Netns, NetnsError, setLinkDown, setLinkUp, waitOperUp, type LinkInfo } from '../../../lib/linux/index.ts';
import { PacketSocket } from '../../../lib/linux/packet-socket.ts';

/** ms before each look at a link just set up: about 0.6 s in all. */
const UP_POLL_MS = [0, 5, 10, 20, 40, 80, 160, 320];

/** The netns or the interface is no longer there: the pod is gone. */
export class LinkGoneError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'LinkGoneError';
  }
}

async function openLink(netnsPath: string, ifname: string): Promise<{ ns: Netns; link: LinkInfo }> {
  let ns: Netns;
  try {
    ns = Netns.open(netnsPath);
  } catch (err) {
    if (err instanceof NetnsError && err.code === 'ENOENT') throw new LinkGoneError(err.message, err);
    throw err;
  }
  try {
    const link = await getLinkByName(ns, ifname);
    if (!link) throw new LinkGoneError(`error looking up ${JSON.stringify(ifname)}: Link not found`);
    return { ns, link };
  } catch (err) {
    ns.close();
    throw err;
  }
}

export async function onLink<T>(netnsPath: string, ifname: string, fn: (ch: Channel, link: LinkInfo) => Promise<T>): Promise<T> {
  const { ns, link } = await openLink(netnsPath, ifname);
  let sock: PacketSocket | undefined;
  try {
    if (!link.up) {
      await setLinkUp(ns, link.index);
      // A DISCOVER sent before the link is running is lost, and the next goes a second later.
      // A link that never runs (no carrier) is left to the exchange's own timeout.
      await waitOperUp(ns, link.index, UP_POLL_MS).catch(() => undefined);
    }
    sock = PacketSocket.open(ns, link.index);
    return await fn(sock, link);
  } finally {
    sock?.close();
    ns.close();
  }
}

/** What the reference does when a lease expires unrenewed: the pod must stop using the address. */
export async function downLink(netnsPath: string, ifname: string): Promise<void> {
  const { ns, link } = await openLink(netnsPath, ifname);
  try {
    await setLinkDown(ns, link.index);
  } finally {
    ns.close();
  }
}
