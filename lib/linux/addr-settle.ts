// Waiting for IPv6 duplicate address detection to finish on a link.
import { setTimeout as sleep } from 'node:timers/promises';
import { getLinkByIndex } from './link.ts';
import { timed } from '../cni-spec/timing.ts';
import { formatIpBytes } from '../cni-spec/ip-bytes.ts';
import { nl } from './netlink-error.ts';
import type { Netns } from './netns.ts';

const AF_INET6 = 10;
const SETTLE_INTERVAL_MS = 50;

export interface AddrState {
  address: string;
  tentative: boolean;
  dadFailed: boolean;
}

export async function listIpv6AddrStates(ns: Netns, index: number): Promise<AddrState[]> {
  const msgs = await nl('RTM_GETADDR', () => ns.rtnl.getAddresses({ family: AF_INET6 }));
  return msgs
    .filter((m) => m.data.index === index && (m.attrs.address ?? m.attrs.local))
    .map((m) => {
      // IFA_FLAGS (u32) supersedes the u8 ifa_flags; the library parses both into objects.
      const flags = { ...m.data.flags, ...m.attrs.flags };
      return { address: formatIpBytes((m.attrs.address ?? m.attrs.local) as Buffer), tentative: flags.tentative === true, dadFailed: flags.dadfailed === true };
    });
}

export class SettleError extends Error {
  override readonly name = 'SettleError';
}

export interface SettleOptions {
  readonly timeoutMs?: number;
  /** Only these addresses count (default: every IPv6 address of the link). */
  readonly only?: (s: AddrState) => boolean;
}

/**
 * Polls until no IPv6 address of the link is tentative (the reference's ip.SettleAddresses).
 * A failed DAD is an error at once. When time runs out on a link that is not up, DAD cannot
 * finish at all, and that is not an error (reference v1.9.0); on an up link it is. Nothing
 * tentative costs one address dump and no wait.
 */
export async function settleIpv6Addresses(ns: Netns, index: number, ifname: string, o: SettleOptions = {}): Promise<void> {
  const { timeoutMs = 5000, only = () => true } = o;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = (await listIpv6AddrStates(ns, index)).filter(only);
    const failed = states.find((s) => s.dadFailed);
    if (failed) throw new SettleError(`link ${ifname} has address ${failed.address} in DADFAILED state`);
    if (!states.some((s) => s.tentative)) return;
    if (Date.now() >= deadline) {
      const link = await getLinkByIndex(ns, index);
      if (!link?.up || link.operState !== 'UP') return;
      throw new SettleError(`link ${ifname} still has tentative addresses after ${Math.round(timeoutMs / 1000)} seconds`);
    }
    await timed('wait', () => sleep(SETTLE_INTERVAL_MS));
  }
}
