// What sbr's ADD makes, decided from plain data (reference doRoutes, doRoutesWithTable and
// getIPCfgs, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/sbr/main.go).
//
// Each address of the interface gets its own table, the first id from 100 up that no rule
// points at (nor a listed route lives in), and a rule "from <address> lookup <table>". The
// table gets a default route via the address's gateway and a copy of every main-table route of
// the interface that belongs to the address (its preferred source or gateway lies in the
// address's subnet, or it has neither); then those routes leave the main table. With a fixed
// `table`, only the rules are made: the table's routes are the operator's.
import { CniError, ErrorCode, type IPConfig, type Result } from '../../lib/cni-spec/index.ts';
import { cidrBytes, ipBytes } from '../../lib/cni-spec/ip-bytes.ts';
import { prefixContains } from '../../lib/cni-spec/cidr-math.ts';

export const FIRST_TABLE = 100;

/** A main-table route of the interface, as listed: what the plan copies and deletes. */
export interface LinkRoute {
  family: 4 | 6;
  /** RTA_PREFSRC */
  src?: string;
  gw?: string;
}

export interface PlannedRule {
  /** "10.0.0.2/32" or "fd00::2/128": the address alone, never its subnet */
  src: string;
  table: number;
}

export interface PlannedDefault {
  family: 4 | 6;
  gw: string;
  table: number;
}

export interface SbrPlan<R extends LinkRoute> {
  rules: PlannedRule[];
  /** default routes via the gateways, added (not replaced) first */
  defaults: PlannedDefault[];
  /** the interface's routes to copy (replace) into a table */
  copies: { route: R; table: number }[];
  /** the interface's main-table routes to delete once copied: all of them */
  deletes: R[];
}

/** The addresses of prevResult that belong to `ifname`; an address naming no interface counts. */
export function addressesOf(prev: Result, ifname: string): IPConfig[] {
  const ips = prev.ips ?? [];
  if (ips.length === 0) throw new CniError(ErrorCode.InvalidNetworkConfig, `No IP addresses supplied on interface: ${ifname}`);
  const ifaces = prev.interfaces ?? [];
  return ips.filter((ip) => {
    const i = ip.interface;
    return i === undefined || i < 0 || i >= ifaces.length || ifaces[i]?.name === ifname;
  });
}

/** The first table from `candidate` up that is in `used`'s complement. */
export function nextTable(used: ReadonlySet<number>, candidate: number): number {
  let t = candidate;
  while (used.has(t)) t++;
  return t;
}

function hostPrefix(address: string): { src: string; family: 4 | 6 } {
  const ip = address.slice(0, address.indexOf('/'));
  const family = ip.includes(':') ? 6 : 4;
  return { src: `${ip}/${family === 4 ? 32 : 128}`, family };
}

/** Whether `ip` (text, maybe absent) lies in the subnet of `address` ("10.0.0.2/24"). */
function inSubnet(address: string, ip: string | undefined): boolean {
  const net = cidrBytes(address);
  const b = ip === undefined ? undefined : ipBytes(ip);
  return !!net && !!b && prefixContains(net, b.bytes);
}

/**
 * The plan for `ips`. `usedTables`: the tables the namespace's rules point at and its listed
 * routes live in. `fixedTable`: the `table` option.
 */
export function planSbr<R extends LinkRoute>(
  ips: readonly IPConfig[],
  linkRoutes: readonly R[],
  usedTables: ReadonlySet<number>,
  fixedTable?: number,
): SbrPlan<R> {
  if (fixedTable !== undefined) {
    return { rules: ips.map((ip) => ({ src: hostPrefix(ip.address).src, table: fixedTable })), defaults: [], copies: [], deletes: [] };
  }
  const plan: SbrPlan<R> = { rules: [], defaults: [], copies: [], deletes: [...linkRoutes] };
  let table = nextTable(usedTables, FIRST_TABLE);
  for (const ip of ips) {
    const { src, family } = hostPrefix(ip.address);
    plan.rules.push({ src, table });
    if (ip.gateway !== undefined) plan.defaults.push({ family, gw: ip.gateway, table });
    for (const route of linkRoutes) {
      const generic = route.src === undefined && route.gw === undefined;
      if (generic || inSubnet(ip.address, route.src) || inSubnet(ip.address, route.gw)) plan.copies.push({ route, table });
    }
    table = nextTable(usedTables, table + 1);
  }
  return plan;
}
