// Config routes and DNS as result fields: only the fields that were given.
import type { DNS, Route } from '../cni-spec/index.ts';
import type { DnsConf, RouteConf } from './schema-parts.ts';

export function toRoute(r: RouteConf): Route {
  const out: Route = { dst: r.dst };
  if (r.gw !== undefined) out.gw = r.gw;
  if (r.mtu !== undefined) out.mtu = r.mtu;
  if (r.advmss !== undefined) out.advmss = r.advmss;
  if (r.priority !== undefined) out.priority = r.priority;
  if (r.table !== undefined) out.table = r.table;
  if (r.scope !== undefined) out.scope = r.scope;
  return out;
}

/** undefined when nothing is set, so an empty DNS prints as the reference prints it. */
export function toDns(d: DnsConf | undefined): DNS | undefined {
  if (d === undefined) return undefined;
  const out: DNS = {};
  if (d.nameservers?.length) out.nameservers = d.nameservers;
  if (d.domain) out.domain = d.domain;
  if (d.search?.length) out.search = d.search;
  if (d.options?.length) out.options = d.options;
  return Object.keys(out).length > 0 ? out : undefined;
}
