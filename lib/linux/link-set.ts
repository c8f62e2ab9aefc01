// Link changes netlink@0.3.0 can express on its own: master, hardware address, promiscuity.
import { nl } from './netlink-error.ts';
import type { Netns } from './netns.ts';

export async function setLinkMaster(ns: Netns, index: number, master: number): Promise<void> {
  await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index }, { master }));
}

export async function setLinkMac(ns: Netns, index: number, mac: Uint8Array): Promise<void> {
  await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index }, { address: Buffer.from(mac) }));
}

export async function setLinkPromisc(ns: Netns, index: number, on: boolean): Promise<void> {
  await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index, flags: on ? { promisc: true } : {}, change: { promisc: true } }));
}

export async function setLinkAllmulti(ns: Netns, index: number, on: boolean): Promise<void> {
  await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index, flags: on ? { allmulti: true } : {}, change: { allmulti: true } }));
}

export async function setLinkTxqlen(ns: Netns, index: number, txqlen: number): Promise<void> {
  await nl('RTM_SETLINK', () => ns.rtnl.setLink({ index }, { txqlen }));
}
