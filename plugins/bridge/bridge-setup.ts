// The bridge itself (reference ensureBridge, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go): created if absent, checked if present.
import { createBridge, getLinkByName, setLinkPromisc, setLinkUp, writeSysctl, type LinkInfo, type Netns } from '../../lib/linux/index.ts';
import type { BridgeConf } from './conf.ts';

export class BridgeSetupError extends Error {
  override readonly name = 'BridgeSetupError';
}

const q = (s: string): string => JSON.stringify(s);

async function ensure(host: Netns, conf: BridgeConf): Promise<LinkInfo> {
  const name = conf.bridge;
  try {
    await createBridge(host, { name, ...(conf.mtu && { mtu: conf.mtu }), vlanFiltering: conf.vlanFiltering });
  } catch (err) {
    throw new BridgeSetupError(`could not add ${q(name)}: ${(err as Error).message}`, { cause: err });
  }
  const br = await getLinkByName(host, name);
  if (!br) throw new BridgeSetupError(`could not lookup ${q(name)}: Link not found`);
  if (br.kind !== 'bridge') throw new BridgeSetupError(`${q(name)} already exists but is not a bridge`);
  // Set on every ADD, never unset (the reference does the same).
  if (conf.promiscMode) {
    try {
      await setLinkPromisc(host, br.index, true);
    } catch (err) {
      throw new BridgeSetupError(`could not set promiscuous mode on ${q(name)}: ${(err as Error).message}`, { cause: err });
    }
  }
  // We own the bridge's routes: no router advertisements (errors ignored: IPv6 may be off).
  // And its addresses: no DAD, so the link-local address the kernel makes when the first port
  // joins is usable at once (without one the bridge cannot solicit a pod's address for
  // forwarded traffic; docs/architecture.md). The reference leaves DAD on.
  for (const [key, value] of [
    ['accept_ra', '0'],
    ['accept_dad', '0'],
  ] as const) {
    try {
      writeSysctl(host, `net/ipv6/conf/${name}/${key}`, value);
    } catch {
      // as the reference
    }
  }
  if (!br.up) await setLinkUp(host, br.index);
  return br;
}

/**
 * Returns the bridge as it was before any port of this ADD joined: its MAC is the one the
 * gateway step pins (a bridge otherwise takes the lowest MAC among its ports).
 */
export async function ensureBridge(host: Netns, conf: BridgeConf): Promise<LinkInfo> {
  try {
    return await ensure(host, conf);
  } catch (err) {
    throw new BridgeSetupError(`failed to create bridge ${q(conf.bridge)}: ${(err as Error).message}`, { cause: err });
  }
}
