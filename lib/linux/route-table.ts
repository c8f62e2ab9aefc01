// Routes moved between tables (source-based routing, plugins/sbr): a link's main-table routes
// as the kernel lists them (so a copy keeps every field a caller does not look at), their
// copies into another table, and the tables in use.
import type { RouteMessage } from 'netlink/dist/rt/structs.js';
import { formatIpBytes } from '../cni-spec/ip-bytes.ts';
import { listRules } from './fib-rule.ts';
import { nl } from './netlink-error.ts';
import type { Netns } from './netns.ts';
import { NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE } from './nl-request.ts';

const AF_INET = 2;
const AF_INET6 = 10;
const RT_TABLE_UNSPEC = 0;
const RT_TABLE_MAIN = 254;
const RTPROT_BOOT = 3;
const RTN_UNICAST = 1;

/** A listed route, with the message it came in to send back. */
export interface KernelRoute {
  readonly family: 4 | 6;
  /** RTA_PREFSRC */
  readonly src?: string;
  readonly gw?: string;
  readonly msg: RouteMessage;
}

const tableOf = (m: RouteMessage): number => m.attrs.table ?? m.data.table ?? RT_TABLE_MAIN;

async function dumpRoutes(ns: Netns): Promise<{ family: 4 | 6; msg: RouteMessage }[]> {
  const out: { family: 4 | 6; msg: RouteMessage }[] = [];
  for (const [af, family] of [
    [AF_INET, 4],
    [AF_INET6, 6],
  ] as const) {
    for (const msg of await nl('RTM_GETROUTE', () => ns.rtnl.getRoutes({ family: af }))) out.push({ family, msg });
  }
  return out;
}

/**
 * The tables sbr must not pick: those the rules point at, and those main-table routes live in
 * (the reference lists routes without a table filter, which its netlink library reads as main).
 */
export async function usedTables(ns: Netns): Promise<Set<number>> {
  const used = new Set<number>((await listRules(ns)).map((r) => r.table));
  for (const { msg } of await dumpRoutes(ns)) if (tableOf(msg) === RT_TABLE_MAIN) used.add(RT_TABLE_MAIN);
  return used;
}

/** The main-table routes through link `index` (a multipath route names no single link: not one of them). */
export async function linkRoutes(ns: Netns, index: number): Promise<KernelRoute[]> {
  return (await dumpRoutes(ns))
    .filter(({ msg }) => tableOf(msg) === RT_TABLE_MAIN && msg.attrs.oif === index)
    .map(({ family, msg }) => ({
      family,
      msg,
      ...(msg.attrs.prefsrc && { src: formatIpBytes(msg.attrs.prefsrc) }),
      ...(msg.attrs.gateway && { gw: formatIpBytes(msg.attrs.gateway) }),
    }));
}

function routeAttrs(m: RouteMessage, table: number): RouteMessage['attrs'] {
  const a = m.attrs;
  return {
    ...(a.dst && { dst: a.dst }),
    ...(a.prefsrc && { prefsrc: a.prefsrc }),
    ...(a.gateway && { gateway: a.gateway }),
    ...(a.oif !== undefined && { oif: a.oif }),
    ...(a.priority !== undefined && { priority: a.priority }),
    ...(a.pref !== undefined && { pref: a.pref }),
    table,
  };
}

/** The route, moved to `table` (replacing one already there); its flags cleared, as the kernel refuses some of them on a new route. */
export async function copyRoute(ns: Netns, r: KernelRoute, table: number): Promise<void> {
  await nl('RTM_NEWROUTE', () =>
    ns.rtnl.newRoute({ ...r.msg.data, table: table > 255 ? RT_TABLE_UNSPEC : table, flags: {} }, routeAttrs(r.msg, table), {
      flags: NLM_F_CREATE | NLM_F_REPLACE,
    }),
  );
}

/** Deletes a route from the table it was listed in, matching every field it was listed with. */
export async function deleteListedRoute(ns: Netns, r: KernelRoute, table = RT_TABLE_MAIN): Promise<void> {
  await nl('RTM_DELROUTE', () => ns.rtnl.delRoute({ ...r.msg.data, table: table > 255 ? RT_TABLE_UNSPEC : table, flags: {} }, routeAttrs(r.msg, table)));
}

/** Puts back a deleted main-table route. */
export async function restoreRoute(ns: Netns, r: KernelRoute): Promise<void> {
  await nl('RTM_NEWROUTE', () => ns.rtnl.newRoute({ ...r.msg.data, flags: {} }, routeAttrs(r.msg, tableOf(r.msg)), { flags: NLM_F_CREATE | NLM_F_REPLACE }));
}

/** `ip route add default via <gw> dev <index> table <table>`, as the reference's RouteAdd sends it. */
/** A default route of `table` via a gateway through link `index`. */
export interface DefaultRoute {
  readonly family: 4 | 6;
  readonly gw: Buffer;
  readonly index: number;
  readonly table: number;
}

export async function addDefaultRoute(ns: Netns, { family, gw, index, table }: DefaultRoute): Promise<void> {
  await nl('RTM_NEWROUTE', () =>
    ns.rtnl.newRoute(
      {
        family: family === 4 ? AF_INET : AF_INET6,
        dstLen: 0,
        table: table > 255 ? RT_TABLE_UNSPEC : table,
        protocol: RTPROT_BOOT,
        scope: 0,
        type: RTN_UNICAST,
      },
      { gateway: gw, oif: index, table },
      { flags: NLM_F_CREATE | NLM_F_EXCL },
    ),
  );
}

/** The routes of `table` through link `index`, for DEL. */
export async function routesInTable(ns: Netns, table: number, index: number): Promise<KernelRoute[]> {
  return (await dumpRoutes(ns)).filter(({ msg }) => tableOf(msg) === table && msg.attrs.oif === index).map(({ family, msg }) => ({ family, msg }));
}

export async function deleteDefaultRoute(ns: Netns, { family, gw, index, table }: DefaultRoute): Promise<void> {
  await nl('RTM_DELROUTE', () =>
    ns.rtnl.delRoute(
      { family: family === 4 ? AF_INET : AF_INET6, dstLen: 0, table: table > 255 ? RT_TABLE_UNSPEC : table, scope: 'NOWHERE' },
      { gateway: gw, oif: index, table },
    ),
  );
}
