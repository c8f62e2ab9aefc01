// Go's omitempty applied to the internal result: a zero value is "absent" in the reference
// structs and never printed, so we never keep one either (interface index, route table and
// scope are pointers there: their 0 is kept).
import type { DNS, IPConfig, Interface, Route } from './result.ts';

export type Loosely<T> = { [K in keyof T]?: T[K] | undefined };

export function cleanInterface(i: Loosely<Interface>): Interface {
  const o: Interface = { name: i.name ?? '' };
  if (i.mac) o.mac = i.mac;
  if (i.mtu) o.mtu = i.mtu;
  if (i.sandbox) o.sandbox = i.sandbox;
  if (i.socketPath) o.socketPath = i.socketPath;
  if (i.pciID) o.pciID = i.pciID;
  return o;
}

export function cleanIP(i: Loosely<IPConfig> & { address: string }): IPConfig {
  const o: IPConfig = { address: i.address };
  if (i.gateway) o.gateway = i.gateway;
  // A pointer in Go: 0 is an index like any other.
  if (i.interface !== undefined) o.interface = i.interface;
  return o;
}

export function cleanRoute(r: Loosely<Route> & { dst: string }): Route {
  const o: Route = { dst: r.dst };
  if (r.gw) o.gw = r.gw;
  if (r.mtu) o.mtu = r.mtu;
  if (r.advmss) o.advmss = r.advmss;
  if (r.priority) o.priority = r.priority;
  if (r.table !== undefined) o.table = r.table;
  if (r.scope !== undefined) o.scope = r.scope;
  return o;
}

export function cleanDNS(d: Loosely<DNS> | undefined): DNS | undefined {
  if (d === undefined) return undefined;
  const o: DNS = {};
  if (d.nameservers?.length) o.nameservers = [...d.nameservers];
  if (d.domain) o.domain = d.domain;
  if (d.search?.length) o.search = [...d.search];
  if (d.options?.length) o.options = [...d.options];
  return Object.keys(o).length > 0 ? o : undefined;
}
