// zod/mini pieces shared by the host-local and static config schemas. Addresses are parsed
// while the config is decoded, with the messages Go's JSON decoding gives for bad text, so
// every badly written address is reported with its path in one code-7 error.
import * as z from 'zod/mini';
import { canonicalCIDR, canonicalIP } from '../cni-spec/index.ts';
import { parseAddr, parseSubnet, type Addr, type Subnet } from './addr.ts';

type Ctx = z.core.ParsePayload<unknown>;

function fail(ctx: Ctx, v: string, message: string): never {
  ctx.issues.push({ code: 'custom', message, input: v });
  return z.NEVER;
}

/** A net.IP field: "" means absent, like Go's nil IP. */
export function ipField() {
  return z.optional(
    z.pipe(
      z.string(),
      z.transform((v: string, ctx): Addr | undefined => {
        if (v === '') return undefined;
        return parseAddr(v) ?? fail(ctx, v, `invalid IP address: ${v}`);
      }),
    ),
  );
}

/** A types.IPNet field: the address keeps its host bits. */
export function subnetField() {
  return z.pipe(
    z.string(),
    z.transform((v: string, ctx): Subnet => parseSubnet(v) ?? fail(ctx, v, `invalid CIDR address: ${v}`)),
  );
}

/**
 * A requested address (pkg/ip.IP): "ip" or "ip/prefix", the prefix ignored. "" decodes to an
 * empty IP, which the loader refuses later with the reference's message (null here).
 */
export function requestedIpField() {
  return z.pipe(
    z.string(),
    z.transform((v: string, ctx): Addr | null => {
      if (v === '') return null;
      return parseRequestedIp(v) ?? fail(ctx, v, `invalid IP address ${v}`);
    }),
  );
}

export function parseRequestedIp(v: string): Addr | undefined {
  if (!v.includes('/')) return parseAddr(v);
  return parseSubnet(v)?.ip;
}

const canonical = (f: (s: string) => string | undefined, what: string) =>
  z.pipe(
    z.string(),
    z.transform((v: string, ctx): string => f(v) ?? fail(ctx, v, `invalid ${what}: ${v}`)),
  );

const optInt = () => z.optional(z.int());

/** types.Route, returned verbatim (Go's text for its addresses). */
export function routeSchema() {
  return z.object({
    dst: canonical(canonicalCIDR, 'CIDR address'),
    gw: z.optional(
      z.pipe(
        z.string(),
        z.transform((v: string, ctx): string | undefined => (v === '' ? undefined : (canonicalIP(v) ?? fail(ctx, v, `invalid IP address: ${v}`)))),
      ),
    ),
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
