// The container interface's attributes tuning changes: reading them, changing them in the
// reference's order, and putting saved values back.
import {
  getLinkDetail,
  parseMac,
  setLinkAllmulti,
  setLinkMac,
  setLinkMtu,
  setLinkPromisc,
  setLinkTxqlen,
  type LinkDetail,
  type Netns,
} from '../../lib/linux/index.ts';
import type { SavedAttrs } from './backup.ts';
import type { TuningConf } from './conf.ts';

export async function containerLink(pod: Netns, ifname: string): Promise<LinkDetail> {
  const link = await getLinkDetail(pod, ifname);
  if (!link) throw new Error(`failed to get ${JSON.stringify(ifname)}: Link not found`);
  return link;
}

/** What DEL must put back: the current value of each attribute the config changes. */
export function attrsToSave(conf: TuningConf, link: LinkDetail): SavedAttrs {
  return {
    ...(conf.mac !== undefined && { mac: link.mac }),
    ...(conf.promisc && { promisc: link.promisc }),
    ...(conf.mtu !== undefined && { mtu: link.mtu }),
    ...(conf.allmulti !== undefined && { allmulti: link.allmulti }),
    ...(conf.txQLen !== undefined && { txQLen: link.txqlen }),
  };
}

/** The reference's order: MAC, promiscuous, MTU, all-multicast, queue length. */
export async function applyAttrs(pod: Netns, index: number, conf: TuningConf): Promise<void> {
  if (conf.mac !== undefined) await step('failed to set MAC address', () => setLinkMac(pod, index, parseMac(conf.mac ?? '') ?? Buffer.alloc(0)));
  if (conf.promisc) await step('failed to set promiscuous mode', () => setLinkPromisc(pod, index, true));
  if (conf.mtu !== undefined) await step('failed to set MTU', () => setLinkMtu(pod, index, conf.mtu ?? 0));
  if (conf.allmulti !== undefined) await step('failed to set all-multicast mode', () => setLinkAllmulti(pod, index, conf.allmulti === true));
  if (conf.txQLen !== undefined) await step('failed to set txQLen', () => setLinkTxqlen(pod, index, conf.txQLen ?? 0));
}

/**
 * The reference's restoreBackup order: MTU first (a MAC change can need the old MTU back on
 * some drivers), then MAC, promiscuous, all-multicast, queue length. Every attribute is
 * tried; the failures come back together.
 */
export async function restoreAttrs(pod: Netns, index: number, saved: SavedAttrs): Promise<string[]> {
  const failed: string[] = [];
  const attempt = async (what: string, run: () => Promise<void>) => {
    try {
      await run();
    } catch (err) {
      failed.push(`failed to restore ${what}: ${(err as Error).message}`);
    }
  };
  if (saved.mtu) await attempt('MTU', () => setLinkMtu(pod, index, saved.mtu ?? 0));
  const mac = saved.mac === undefined ? undefined : parseMac(saved.mac);
  if (saved.mac !== undefined)
    await attempt('MAC address', async () => (mac ? setLinkMac(pod, index, mac) : Promise.reject(new Error(`invalid MAC ${saved.mac}`))));
  if (saved.promisc !== undefined) await attempt('promiscuous mode', () => setLinkPromisc(pod, index, saved.promisc === true));
  if (saved.allmulti !== undefined) await attempt('all-multicast mode', () => setLinkAllmulti(pod, index, saved.allmulti === true));
  if (saved.txQLen !== undefined) await attempt('txQLen', () => setLinkTxqlen(pod, index, saved.txQLen ?? 0));
  return failed;
}

async function step(what: string, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}`, { cause: err });
  }
}
