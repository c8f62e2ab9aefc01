// Interface addresses of a namespace, through its rtnetlink socket.
import type { AddressMessage } from 'netlink/dist/rt/structs.js';
import { ipv4Broadcast } from '../cni-spec/cidr-math.ts';
import { formatIpBytes, cidrBytes, type IpFamily, type CidrBytes } from '../cni-spec/ip-bytes.ts';
import { isNetlinkError, nl } from './netlink-error.ts';
import type { Netns } from './netns.ts';

export interface AddrInfo {
  family: IpFamily;
  address: string;
  prefixLen: number;
  /** Link index. */
  index: number;
  /** RT_SCOPE_*: 0 universe, 253 link, 254 host. */
  scope: number;
  /** IFA_F_NODAD: added without duplicate address detection (IPv6) */
  nodad?: true;
}

const AF_INET = 2;
const AF_INET6 = 10;
// NLM_F_CREATE | NLM_F_EXCL, as the reference's netlink.AddrAdd: an address
// already present is EEXIST, not silently accepted.
const CREATE_EXCL = 0x400 | 0x200;

function toAddrInfo(msg: AddressMessage): AddrInfo | undefined {
  const { data, attrs } = msg;
  const family = data.family === AF_INET ? 4 : data.family === AF_INET6 ? 6 : undefined;
  // IFA_LOCAL is the interface's own address; IFA_ADDRESS is the peer on
  // point-to-point links, and the only one IPv6 sends.
  const bytes = attrs.local ?? attrs.address;
  if (!family || !bytes) return undefined;
  return {
    family,
    address: formatIpBytes(bytes),
    prefixLen: data.prefixlen ?? 0,
    index: data.index ?? 0,
    scope: data.scope ?? 0,
    ...(data.flags?.nodad && { nodad: true as const }),
  };
}

export async function listAddresses(ns: Netns, filter: { index?: number; family?: IpFamily } = {}): Promise<AddrInfo[]> {
  // The family is filtered by the kernel (it picks the per-family dump); the
  // index by us, since the kernel only honours ifa_index on strict-check sockets.
  const family = filter.family === 4 ? AF_INET : filter.family === 6 ? AF_INET6 : 0;
  const msgs = await nl('RTM_GETADDR', () => ns.rtnl.getAddresses({ family }));
  const out: AddrInfo[] = [];
  for (const msg of msgs) {
    const a = toAddrInfo(msg);
    if (a && (filter.index === undefined || a.index === filter.index)) out.push(a);
  }
  return out;
}

function mustParse(cidr: string): CidrBytes {
  const parsed = cidrBytes(cidr);
  if (!parsed) throw new TypeError(`invalid CIDR address ${JSON.stringify(cidr)}`);
  return parsed;
}

export interface AddAddressOptions {
  /**
   * IPv6 only: IFA_F_NODAD, the address is usable at once. Without it the kernel keeps it
   * tentative (neither answered for nor used as a source) for 1-2 s of duplicate detection.
   */
  readonly nodad?: boolean;
}

/** Adds "10.1.2.3/24" to a link; an IPv4 address gets its broadcast, as the reference sets it. */
export async function addAddress(ns: Netns, index: number, cidr: string, o: AddAddressOptions = {}): Promise<void> {
  const { family, bytes, prefixLen } = mustParse(cidr);
  const attrs =
    family === 4 && prefixLen < 31 ? { local: bytes, address: bytes, broadcast: ipv4Broadcast(bytes, prefixLen) } : { local: bytes, address: bytes };
  const data = { family: family === 4 ? AF_INET : AF_INET6, prefixlen: prefixLen, index, ...(family === 6 && o.nodad && { flags: { nodad: true as const } }) };
  await nl('RTM_NEWADDR', () => ns.rtnl.newAddress(data, attrs, { flags: CREATE_EXCL }));
}

/** Removing an address (or link) that is already gone succeeds: DEL must be idempotent. */
export async function delAddress(ns: Netns, index: number, cidr: string): Promise<void> {
  const { family, bytes, prefixLen } = mustParse(cidr);
  try {
    await nl('RTM_DELADDR', () => ns.rtnl.delAddress({ family: family === 4 ? AF_INET : AF_INET6, prefixlen: prefixLen, index }, { local: bytes }));
  } catch (err) {
    if (!isNetlinkError(err, 'EADDRNOTAVAIL', 'ENODEV')) throw err;
  }
}
