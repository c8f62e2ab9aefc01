// The ifb's name and alias. Pure.
import { hashHex } from '../../lib/linux/netfilter/core/names.ts';

/** "bwp" + 12 hex of SHA-512(network + containerId): the reference's getIfbDeviceName, 15 chars. */
export function ifbName(network: string, containerId: string): string {
  return `bwp${hashHex(network + containerId, 12)}`;
}

// IFALIASZ is 256 with the NUL.
const ALIAS_MAX = 255;

/**
 * The alias that marks an ifb as this network's (GC deletes only those). The name alone cannot
 * say which network made it: it is a one-way hash of network and container.
 */
export function ifbAlias(network: string): string {
  const plain = `cni-bandwidth network=${network}`;
  return Buffer.byteLength(plain) <= ALIAS_MAX ? plain : `cni-bandwidth network-sha512=${hashHex(network, 32)}`;
}
