// static IPAM's config (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/static/main.go). Where the addresses come from, strongest first:
// runtimeConfig.ips, then args.cni.ips (each replaces everything before it, gateways
// included), then ipam.addresses plus CNI_ARGS IP (appended), whose addresses take the
// CNI_ARGS GATEWAY that lies in their subnet.
import * as z from 'zod/mini';
import { cleanDNS, cleanRoute, compareVersions, namedSchema, parseCniArgs, parseWithSchema, type CniRequest, type DNS, type Route } from '../cni-spec/index.ts';
import { formatSubnet, parseAddr, parseSubnet, subnetContains, type Addr, type Subnet } from './addr.ts';
import { configError } from './problem.ts';
import { dnsSchema, ipField, routeSchema } from './schema-parts.ts';

function build() {
  const ips = z.optional(z.array(z.string()));
  return z.object({
    cniVersion: z.optional(z.string()),
    ipam: z.optional(
      z.object({
        type: z.optional(z.string()),
        routes: z.optional(z.array(routeSchema())),
        addresses: z.optional(z.array(z.object({ address: z.optional(z.string()), gateway: ipField() }))),
        dns: z.optional(dnsSchema()),
      }),
    ),
    runtimeConfig: z.optional(z.object({ ips })),
    args: z.optional(z.object({ cni: z.optional(z.object({ ips })) })),
  });
}

/** The fields static reads (also used by e2e/bad-input to derive its cases). */
export const staticConfSchema = namedSchema('static', build);

export interface StaticAddress {
  /** as the result prints it: the address with its prefix length, host bits kept */
  readonly address: string;
  readonly ip: Addr;
  readonly gateway?: Addr;
}

export interface StaticConf {
  readonly addresses: readonly StaticAddress[];
  readonly routes: readonly Route[];
  readonly dns?: DNS;
}

interface Entry {
  readonly cidr: Subnet;
  gateway?: Addr | undefined;
}

function parseList(list: readonly string[], path: string, what: (s: string) => string): Entry[] {
  return list.map((s, i) => {
    const cidr = parseSubnet(s);
    if (cidr === undefined) throw configError(what(s), `${path}[${i}]`);
    return { cidr };
  });
}

/** CNI_ARGS IP and GATEWAY: comma-separated lists. These reach the reference as plain strings. */
function fromCniArgs(cniArgs: string): Entry[] {
  if (cniArgs === '') return [];
  const args = parseCniArgs(cniArgs, ['IP', 'GATEWAY']);
  const out: Entry[] = [];
  for (const item of args['IP'] ? args['IP'].split(',') : []) {
    const s = item.trim();
    const cidr = parseSubnet(s);
    if (cidr === undefined) throw configError(`the 'ip' field is expected to be in CIDR notation, got: '${s}'`, 'CNI_ARGS IP');
    out.push({ cidr });
  }
  for (const item of args['GATEWAY'] ? args['GATEWAY'].split(',') : []) {
    const gw = parseAddr(item.trim());
    if (gw === undefined) throw configError(`invalid gateway address: ${item}`, 'CNI_ARGS GATEWAY');
    for (const e of out) if (subnetContains(e.cidr, gw)) e.gateway = gw;
  }
  return out;
}

export function loadStaticConf(req: CniRequest): StaticConf {
  const raw = parseWithSchema(staticConfSchema, req.config);
  const ipam = raw.ipam;
  if (ipam === undefined) throw configError("IPAM config missing 'ipam' key", 'ipam');
  const notCidr = (s: string) => `an entry in the 'ips' field is NOT in CIDR notation, got: '${s}'`;
  // The reference reads every source in this order, so each one's errors show even when a
  // later source replaces it.
  const args = fromCniArgs(req.args);
  const fromArgs = raw.args?.cni?.ips?.length ? parseList(raw.args.cni.ips, 'args.cni.ips', notCidr) : undefined;
  const fromRuntime = raw.runtimeConfig?.ips?.length ? parseList(raw.runtimeConfig.ips, 'runtimeConfig.ips', notCidr) : undefined;
  const entries = fromRuntime ??
    fromArgs ?? [
      ...(ipam.addresses ?? []).map((a, i): Entry => {
        const text = a.address ?? '';
        const cidr = parseSubnet(text);
        if (cidr === undefined) {
          throw configError(`the 'address' field is expected to be in CIDR notation, got: '${text}'`, `ipam.addresses[${i}].address`);
        }
        return { cidr, gateway: a.gateway };
      }),
      ...args,
    ];
  const v4 = entries.filter((e) => e.cidr.ip.v4).length;
  if (v4 > 1 || entries.length - v4 > 1) {
    const version = raw.cniVersion ?? '';
    let ok = false;
    try {
      ok = compareVersions(version, '0.3.0') >= 0;
    } catch {
      // an unreadable version allows no more than the oldest
    }
    if (!ok) throw configError(`CNI version ${version} does not support more than 1 address per family`, 'ipam.addresses');
  }
  const dns = cleanDNS(ipam.dns);
  return Object.freeze({
    addresses: entries.map((e) => ({ address: formatSubnet(e.cidr), ip: e.cidr.ip, ...(e.gateway && { gateway: e.gateway }) })),
    routes: (ipam.routes ?? []).map(cleanRoute),
    ...(dns && { dns }),
  });
}
