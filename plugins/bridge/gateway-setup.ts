// Gateway addresses on the bridge (or the VLAN gateway interface) and IP forwarding
// (isGateway/forceAddress as in the reference, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go).
import { cidrBytes, errorText, prefixContains, type IpFamily } from '../../lib/cni-spec/index.ts';
import {
  addAddress,
  delAddress,
  getLinkByIndex,
  isExists,
  isUnicastMac,
  listAddresses,
  parseMac,
  readSysctl,
  setLinkMac,
  writeSysctl,
  type LinkInfo,
  type Netns,
} from '../../lib/linux/index.ts';
import type { GatewayAddr } from './gateway-plan.ts';

/**
 * Puts gw on the link unless it is there. Another IPv4 address, or an IPv6 address whose
 * prefix overlaps, is replaced with forceAddress and an error without it; other IPv6
 * addresses stay. Then the link's MAC is set to `pinMac` (see macToPin): a bridge whose MAC
 * was never set follows its lowest port MAC as ports churn.
 */
export async function ensureGatewayAddr(
  host: Netns,
  link: LinkInfo,
  gw: GatewayAddr,
  opts: { pinMac: Buffer | undefined; forceAddress: boolean },
): Promise<void> {
  const { pinMac, forceAddress } = opts;
  const want = cidrBytes(gw.cidr);
  if (!want) throw new TypeError(`invalid gateway ${gw.cidr}`);
  for (const a of await listAddresses(host, { index: link.index, family: gw.family })) {
    const have = cidrBytes(`${a.address}/${a.prefixLen}`);
    if (!have) continue;
    if (have.bytes.equals(want.bytes) && have.prefixLen === want.prefixLen) return;
    if (gw.family === 4 || prefixContains(have, want.bytes) || prefixContains(want, have.bytes)) {
      if (!forceAddress) throw new Error(`${JSON.stringify(link.name)} already has an IP address different from ${gw.cidr}`);
      try {
        await delAddress(host, link.index, `${a.address}/${a.prefixLen}`);
      } catch (err) {
        throw new Error(`could not remove IP address from ${JSON.stringify(link.name)}: ${errorText(err)}`, { cause: err });
      }
    }
  }
  try {
    // No DAD: the gateway is IPAM's to hand out, and a tentative one leaves the first pods
    // unable to resolve it for 1-2 s after ADD returned (docs/architecture.md).
    await addAddress(host, link.index, gw.cidr, { nodad: true });
  } catch (err) {
    if (!isExists(err)) throw new Error(`could not add IP address to ${JSON.stringify(link.name)}: ${errorText(err)}`, { cause: err });
  }
  try {
    if (pinMac) await setLinkMac(host, link.index, pinMac);
  } catch (err) {
    throw new Error(`could not set bridge's mac: ${errorText(err)}`, { cause: err });
  }
}

const FORWARDING: Record<IpFamily, string> = { 4: 'net/ipv4/ip_forward', 6: 'net/ipv6/conf/all/forwarding' };

/** Written only when not already on, as the reference does. */
export function enableForwarding(host: Netns, family: IpFamily): void {
  const key = FORWARDING[family];
  try {
    if (readSysctl(host, key) !== '1') writeSysctl(host, key, '1');
  } catch (err) {
    throw new Error(`failed to enable forwarding: ${errorText(err)}`, { cause: err });
  }
}

/**
 * The MAC to pin: the one the link had before this ADD's port joined, unless that was none
 * at all. A bridge that lost its last port shows 00:00:00:00:00:00, which the kernel refuses
 * as an address (the reference then fails the ADD); it has adopted a port's MAC since, and
 * that one is kept.
 */
async function macToPin(host: Netns, link: LinkInfo, before: string): Promise<Buffer | undefined> {
  const mac = parseMac(before);
  if (mac && isUnicastMac(mac)) return mac;
  const now = parseMac((await getLinkByIndex(host, link.index))?.mac ?? '');
  return now && isUnicastMac(now) ? now : undefined;
}

/** `before` is the link's MAC as first seen (see macToPin). */
export interface GatewaySetup {
  readonly before: string;
  readonly gateways: readonly GatewayAddr[];
  readonly forceAddress: boolean;
}

export async function setupGateways(host: Netns, link: LinkInfo, { before, gateways, forceAddress }: GatewaySetup): Promise<void> {
  const pinMac = await macToPin(host, link, before);
  for (const gw of gateways) {
    try {
      await ensureGatewayAddr(host, link, gw, { pinMac, forceAddress });
    } catch (err) {
      throw new Error(`failed to set bridge addr: ${errorText(err)}`, { cause: err });
    }
  }
  for (const family of [4, 6] as const) if (gateways.some((g) => g.family === family)) enableForwarding(host, family);
}
