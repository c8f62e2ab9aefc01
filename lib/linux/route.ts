// Routes of a namespace, through its rtnetlink socket.
import type { RouteMessage } from 'netlink/dist/rt/structs.js';
import { maskBytes } from '../cni-spec/cidr-math.ts';
import { formatIpBytes, cidrBytes, ipBytes, type IpFamily } from '../cni-spec/ip-bytes.ts';
import { isNetlinkError, nl } from './netlink-error.ts';
import { findAttr } from './nl-codec.ts';
import type { Netns } from './netns.ts';
import { NLM_F_APPEND, NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE } from './nl-request.ts';

const AF_INET = 2;
const AF_INET6 = 10;
const RT_TABLE_UNSPEC = 0;
const RT_TABLE_MAIN = 254;
const RTPROT_BOOT = 3;
const RTN_UNICAST = 1;
const SCOPES: Readonly<Record<string, number>> = { UNIVERSE: 0, SITE: 200, LINK: 253, HOST: 254, NOWHERE: 255 };

export interface RouteSpec {
  /** "10.0.0.0/8"; host bits are cleared (the kernel refuses them for IPv4) */
  dst: string;
  gw?: string;
  /** outgoing link */
  index: number;
  priority?: number;
  /** default: main */
  table?: number;
  /** RT_SCOPE_*; default universe, as the reference's netlink library sends it */
  scope?: number;
  /** RTA_PREFSRC: the source address for traffic the route carries */
  src?: string;
  /** RTPROT_*; default boot, as the reference's netlink library sends it */
  protocol?: number;
}

export interface RouteInfo {
  family: IpFamily;
  /** network/prefix; "0.0.0.0/0" or "::/0" for a default route */
  dst: string;
  gw?: string;
  index?: number;
  table: number;
  priority?: number;
  scope: number;
  /** RTPROT_*: 2 kernel, 3 boot...; absent when the message has none */
  protocol?: number;
}

function parseDst(dst: string): { family: IpFamily; bytes: Buffer; prefixLen: number } {
  const c = cidrBytes(dst);
  if (!c) throw new TypeError(`invalid route destination ${JSON.stringify(dst)}`);
  return { ...c, bytes: maskBytes(c.bytes, c.prefixLen) };
}

/**
 * Adds a route. `append` (NLM_F_APPEND) is the reference's ECMP behaviour: a second route to
 * the same destination is added beside the first (IPv6 merges them into one multipath route);
 * without it an identical route is EEXIST.
 */
export async function addRoute(ns: Netns, r: RouteSpec, o: { append?: boolean; replace?: boolean } = {}): Promise<void> {
  const dst = parseDst(r.dst);
  const gw = r.gw === undefined ? undefined : ipBytes(r.gw);
  if (r.gw !== undefined && (!gw || gw.family !== dst.family)) throw new TypeError(`invalid gateway ${JSON.stringify(r.gw)} for ${r.dst}`);
  const table = r.table ?? RT_TABLE_MAIN;
  const src = r.src === undefined ? undefined : ipBytes(r.src);
  if (r.src !== undefined && (!src || src.family !== dst.family)) throw new TypeError(`invalid source ${JSON.stringify(r.src)} for ${r.dst}`);
  await nl('RTM_NEWROUTE', () =>
    ns.rtnl.newRoute(
      {
        family: dst.family === 4 ? AF_INET : AF_INET6,
        dstLen: dst.prefixLen,
        // rtm_table is a u8: larger ids only travel in RTA_TABLE.
        table: table > 255 ? RT_TABLE_UNSPEC : table,
        protocol: r.protocol ?? RTPROT_BOOT,
        scope: r.scope ?? 0,
        type: RTN_UNICAST,
      },
      {
        ...(dst.prefixLen > 0 && { dst: dst.bytes }),
        ...(gw && { gateway: gw.bytes }),
        ...(src && { prefsrc: src.bytes }),
        oif: r.index,
        table,
        ...(r.priority !== undefined && { priority: r.priority }),
      },
      // replace: `ip route replace`, the reference's netlink.RouteReplace
      { flags: NLM_F_CREATE | (o.replace ? NLM_F_REPLACE : o.append ? NLM_F_APPEND : NLM_F_EXCL) },
    ),
  );
}

/**
 * Deletes the main-table route to `dst` through link `index`, whatever its scope or protocol
 * (RT_SCOPE_NOWHERE in a delete matches any scope). A route already gone (ESRCH) is done.
 */
export async function deleteRoute(ns: Netns, dst: string, index: number): Promise<void> {
  const d = parseDst(dst);
  try {
    await nl('RTM_DELROUTE', () =>
      ns.rtnl.delRoute(
        { family: d.family === 4 ? AF_INET : AF_INET6, dstLen: d.prefixLen, table: RT_TABLE_MAIN, scope: SCOPES['NOWHERE'] ?? 255 },
        { ...(d.prefixLen > 0 && { dst: d.bytes }), oif: index },
      ),
    );
  } catch (err) {
    if (!isNetlinkError(err, 'ESRCH')) throw err;
  }
}

const PROTOCOLS: Readonly<Record<string, number>> = { REDIRECT: 1, KERNEL: 2, BOOT: 3, STATIC: 4 };

/** netlink@0.3.0 names the protocols it knows and leaves the others as numbers. */
function protocolOf(p: unknown): number {
  if (typeof p === 'number') return p;
  return (typeof p === 'string' && PROTOCOLS[p]) || 0;
}

function scopeOf(s: unknown): number {
  if (typeof s === 'number') return s;
  return (typeof s === 'string' && SCOPES[s]) || 0;
}

const RTA_GATEWAY = 5;
const RTNH_LEN = 8;

/** struct rtnexthop { u16 len; u8 flags; u8 hops; s32 ifindex; } followed by its attributes. */
function nextHops(mp: Buffer): { index: number; gw?: Buffer }[] {
  const hops: { index: number; gw?: Buffer }[] = [];
  for (let off = 0; off + RTNH_LEN <= mp.length;) {
    const len = mp.readUInt16LE(off);
    if (len < RTNH_LEN || off + len > mp.length) break;
    const gw = findAttr(mp.subarray(off + RTNH_LEN, off + len), RTA_GATEWAY);
    hops.push({ index: mp.readInt32LE(off + 4), ...(gw && { gw }) });
    off += (len + 3) & ~3;
  }
  return hops;
}

/** One entry per next hop: an ECMP route (RTA_MULTIPATH) becomes several. */
export function toRouteInfos(msg: RouteMessage): RouteInfo[] {
  const { data, attrs } = msg;
  const family = data.family === AF_INET ? 4 : data.family === AF_INET6 ? 6 : undefined;
  if (!family) return [];
  const zero = Buffer.alloc(family === 4 ? 4 : 16);
  const base: RouteInfo = {
    family,
    dst: `${formatIpBytes(attrs.dst ?? zero)}/${data.dstLen ?? 0}`,
    table: attrs.table ?? data.table ?? RT_TABLE_MAIN,
    scope: scopeOf(data.scope),
  };
  if (data.protocol !== undefined) base.protocol = protocolOf(data.protocol);
  if (attrs.priority !== undefined) base.priority = attrs.priority;
  const hops = attrs.multipath ? nextHops(attrs.multipath) : [{ index: attrs.oif, gw: attrs.gateway }];
  return hops.map((h) => ({
    ...base,
    ...(h.index !== undefined && { index: h.index }),
    ...(h.gw && { gw: formatIpBytes(h.gw) }),
  }));
}

/** Every route of a family in every table. */
export async function listRoutes(ns: Netns, family: IpFamily): Promise<RouteInfo[]> {
  const msgs = await nl('RTM_GETROUTE', () => ns.rtnl.getRoutes({ family: family === 4 ? AF_INET : AF_INET6 }));
  return msgs.flatMap(toRouteInfos);
}
