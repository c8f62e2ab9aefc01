// zod/mini pieces shared by the host-local and static config schemas. Addresses are parsed
// while the config is decoded, with the messages Go's JSON decoding gives for bad text, so
// every badly written address is reported with its path in one code-7 error.
import * as z from 'zod/mini';
import { cidrText, failTransform, ipText, namedTransform } from '../cni-spec/index.ts';
import { parseAddr, parseSubnet, type Addr, type Subnet } from './addr.ts';

type Ctx = z.core.ParsePayload<unknown>;

// Named, so a config is read through them without building the schema (lib/cni-spec quick-shape.ts).
const ADDR = namedTransform('ipam-addr', (v: string, ctx: Ctx): Addr | undefined =>
  v === '' ? undefined : (parseAddr(v) ?? failTransform(ctx, v, `invalid IP address: ${v}`)),
);
const SUBNET = namedTransform('ipam-subnet', (v: string, ctx: Ctx): Subnet => parseSubnet(v) ?? failTransform(ctx, v, `invalid CIDR address: ${v}`));
const REQUESTED = namedTransform('ipam-requested-ip', (v: string, ctx: Ctx): Addr | null =>
  v === '' ? null : (parseRequestedIp(v) ?? failTransform(ctx, v, `invalid IP address ${v}`)),
);

/** A net.IP field: "" means absent, like Go's nil IP. */
export function ipField() {
  return z.optional(z.pipe(z.string(), z.transform(ADDR)));
}

/** A types.IPNet field: the address keeps its host bits. */
export function subnetField() {
  return z.pipe(z.string(), z.transform(SUBNET));
}

/**
 * A requested address (pkg/ip.IP): "ip" or "ip/prefix", the prefix ignored. "" decodes to an
 * empty IP, which the loader refuses later with the reference's message (null here).
 */
export function requestedIpField() {
  return z.pipe(z.string(), z.transform(REQUESTED));
}

export function parseRequestedIp(v: string): Addr | undefined {
  if (!v.includes('/')) return parseAddr(v);
  return parseSubnet(v)?.ip;
}

const optInt = () => z.optional(z.int());

/** types.Route, returned verbatim (Go's text for its addresses). */
export function routeSchema() {
  return z.object({
    dst: cidrText(),
    gw: ipText(),
    mtu: optInt(),
    advmss: optInt(),
    priority: optInt(),
    table: optInt(),
    scope: optInt(),
  });
}

/** types.DNS */
export function dnsSchema() {
  return z.object({
    nameservers: z.optional(z.array(z.string())),
    domain: z.optional(z.string()),
    search: z.optional(z.array(z.string())),
    options: z.optional(z.array(z.string())),
  });
}

export type RouteConf = z.output<ReturnType<typeof routeSchema>>;
export type DnsConf = z.output<ReturnType<typeof dnsSchema>>;
