// tun/tap devices. The kernel makes them only through /dev/net/tun ioctls (RTM_NEWLINK of kind
// "tun" is refused), which native/tun.c does inside the netns given; everything after creation
// (MTU, MAC, master, up) is ordinary rtnetlink. Flags: tun-flags.ts.
import { tunCreate } from './addon.ts';
import type { Netns } from './netns.ts';

export interface TunSpec {
  name: string;
  /** TUNSETIFF flags (IFF_TAP, IFF_NO_PI, ...) */
  flags: number;
  /** TUNSETOWNER / TUNSETGROUP; absent: left unset (any user with CAP_NET_ADMIN may attach) */
  owner?: number;
  group?: number;
}

export class TunError extends Error {
  override readonly name = 'TunError';
}

/**
 * Makes a persistent tun/tap device in ns. A name already taken, by a link of any kind, fails
 * with EBUSY (IFF_TUN_EXCL) rather than attaching to what is there.
 */
export function createTun(ns: Netns, spec: TunSpec): string {
  try {
    return tunCreate(ns.fd, { name: spec.name, flags: spec.flags, owner: spec.owner ?? -1, group: spec.group ?? -1 });
  } catch (err) {
    throw new TunError(`failed to create tap ${JSON.stringify(spec.name)}: ${(err as Error).message}`, { cause: err });
  }
}
