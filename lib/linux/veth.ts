// veth pairs, each end created straight in its namespace: one RTM_NEWLINK from the host
// side's socket whose peer carries IFLA_NET_NS_FD, so no end is ever renamed or moved.
import { getLinkByName, type LinkInfo } from './link.ts';
import { encodeNewVeth, type VethEnd } from './link-msg.ts';
import { isNetlinkError } from './netlink-error.ts';
import type { Netns } from './netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL, RTM_NEWLINK, rtnlRequest } from './nl-request.ts';

export type { VethEnd } from './link-msg.ts';

/** "veth" and 8 hex digits, as the reference names host-side ends. */
export function randomVethName(): string {
  return `veth${Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString('hex')}`;
}

/**
 * Creates `main` in ns and `peer` in peer.netnsFd (or ns). NLM_F_EXCL: without it an existing
 * `main` would silently be modified instead. EEXIST does not say which end's name is taken.
 */
export async function createVeth(ns: Netns, main: VethEnd, peer: VethEnd): Promise<void> {
  await rtnlRequest(ns, RTM_NEWLINK, encodeNewVeth(main, peer), NLM_F_CREATE | NLM_F_EXCL);
}

export class VethError extends Error {
  override readonly name = 'VethError';
  constructor(
    readonly code: 'EXISTS' | 'NO_UNIQUE_NAME' | 'FAILED',
    message: string,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

export interface VethSpec {
  /** the container-side name (CNI_IFNAME) */
  ifname: string;
  mtu?: number;
  /** the container side's address */
  mac?: Uint8Array;
  /** bridge index: the host end is enslaved and set up by the same request */
  hostMaster?: number;
}

export interface VethPair {
  host: LinkInfo;
  container: LinkInfo;
}

const ATTEMPTS = 10;
const goQuote = (s: string): string => JSON.stringify(s);

/**
 * The reference's ip.SetupVeth: `ifname` in the container netns, a random `vethXXXXXXXX` in
 * the host netns (up; 10 tries on a name clash), both with the MTU.
 */
export async function setupVeth(host: Netns, container: Netns, spec: VethSpec): Promise<VethPair> {
  for (let i = 0; i < ATTEMPTS; i++) {
    const hostName = randomVethName();
    const hostEnd: VethEnd = {
      name: hostName,
      up: true,
      ...(spec.mtu && { mtu: spec.mtu }),
      ...(spec.hostMaster !== undefined && { master: spec.hostMaster }),
    };
    const contEnd: VethEnd = { name: spec.ifname, netnsFd: container.fd, ...(spec.mtu && { mtu: spec.mtu }), ...(spec.mac && { mac: spec.mac }) };
    try {
      await createVeth(host, hostEnd, contEnd);
    } catch (err) {
      if (!isNetlinkError(err, 'EEXIST')) throw new VethError('FAILED', `failed to make veth pair: ${(err as Error).message}`, err);
      if ((await getLinkByName(host, hostName)) !== undefined) continue;
      throw new VethError('EXISTS', `container veth name (${goQuote(spec.ifname)}) peer provided (${goQuote(hostName)}) already exists`, err);
    }
    const [h, c] = await Promise.all([getLinkByName(host, hostName), getLinkByName(container, spec.ifname)]);
    if (!h || !c) throw new VethError('FAILED', `failed to look up the new veth pair ${goQuote(hostName)}/${goQuote(spec.ifname)}`);
    return { host: h, container: c };
  }
  throw new VethError('NO_UNIQUE_NAME', 'failed to find a unique veth name');
}
