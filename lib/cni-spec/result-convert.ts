// Rendering the internal result in a given spec version: the explicit conversion table of
// libcni (https://github.com/containernetworking/cni/blob/v1.3.0/pkg/types/040/types.go, https://github.com/containernetworking/cni/blob/v1.3.0/pkg/types/100/types.go), with each version's JSON field order and Go's omitempty rules.
import { CniError, ErrorCode } from './errors.ts';
import { goJSON } from './go-json.ts';
import { isV4, parseCIDR } from './ip.ts';
import { cleanDNS, cleanInterface, cleanRoute } from './result-clean.ts';
import type { DNS, Result, Route } from './result.ts';
import { CURRENT_VERSION, DEFAULT_VERSION, isCniVersion, resultFamily } from './versions.ts';

type Json = Record<string, unknown>;

// Field order of types.Route's JSON struct. Only dst and gw survive a trip through the
// 0.1/0.2 converters, which build new routes from those two fields.
function route(r: Route, full: boolean): Json {
  const c = cleanRoute(r);
  if (!full) return { dst: c.dst, ...(c.gw !== undefined && { gw: c.gw }) };
  return { ...c };
}

function dnsFields(d: DNS | undefined): Json {
  const c = cleanDNS(d) ?? {};
  return {
    ...(c.nameservers && { nameservers: c.nameservers }),
    ...(c.domain !== undefined && { domain: c.domain }),
    ...(c.search && { search: c.search }),
    ...(c.options && { options: c.options }),
  };
}

const isV4Address = (cidr: string): boolean => {
  const c = parseCIDR(cidr);
  return c !== undefined && isV4(c.ip);
};

// 1.x prints through a map (types100.Result.MarshalJSON), so every key is sorted, and the
// `dns` object is dropped when empty.
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v !== 'object' || v === null) return v;
  const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keys.map((k) => [k, sortKeys((v as Json)[k])]));
}

function to100(r: Result, version: string, fullRoutes: boolean): Json {
  const dns = dnsFields(r.dns);
  return sortKeys({
    cniVersion: version,
    ...(r.interfaces?.length && { interfaces: r.interfaces.map((i) => ({ ...cleanInterface(i) })) }),
    ...(r.ips?.length && {
      ips: r.ips.map((ip) => ({
        address: ip.address,
        ...(ip.gateway && { gateway: ip.gateway }),
        ...(ip.interface !== undefined && { interface: ip.interface }),
      })),
    }),
    ...(r.routes?.length && { routes: r.routes.map((rt) => route(rt, fullRoutes)) }),
    ...(Object.keys(dns).length > 0 && { dns }),
  }) as Json;
}

// types040: struct order, `ips[].version` from the address family (Go's To4), interfaces
// without the 1.1 fields, and `dns` always present ({} when empty: no custom marshaller).
function to040(r: Result, version: string, fullRoutes: boolean): Json {
  return {
    cniVersion: version,
    ...(r.interfaces?.length && {
      interfaces: r.interfaces.map((i) => {
        const c = cleanInterface(i);
        return { name: c.name, ...(c.mac && { mac: c.mac }), ...(c.sandbox && { sandbox: c.sandbox }) };
      }),
    }),
    ...(r.ips?.length && {
      ips: r.ips.map((ip) => ({
        version: isV4Address(ip.address) ? '4' : '6',
        ...(ip.interface !== undefined && { interface: ip.interface }),
        address: ip.address,
        ...(ip.gateway && { gateway: ip.gateway }),
      })),
    }),
    ...(r.routes?.length && { routes: r.routes.map((rt) => route(rt, fullRoutes)) }),
    dns: dnsFields(r.dns),
  };
}

// types020: the first IPv4 and the first IPv6 address only; each route goes under the
// family of its dst, and only if that family has an address. Without any address the
// result cannot be expressed at all.
function to020(r: Result, version: string, fullRoutes: boolean): Json {
  const ips = r.ips ?? [];
  const first = (v4: boolean) => ips.find((ip) => isV4Address(ip.address) === v4);
  const configs = [first(true), first(false)].map((ip) =>
    ip === undefined ? undefined : { ip: ip.address, ...(ip.gateway && { gateway: ip.gateway }), routes: [] as Json[] },
  );
  const [ip4, ip6] = configs;
  if (ip4 === undefined && ip6 === undefined) {
    throw new CniError(ErrorCode.IncompatibleCNIVersion, 'cannot convert: no valid IP addresses');
  }
  for (const rt of r.routes ?? []) (isV4Address(rt.dst) ? ip4 : ip6)?.routes.push(route(rt, fullRoutes));
  const render = (c: (typeof configs)[number]) => c && { ip: c.ip, ...(c.gateway && { gateway: c.gateway }), ...(c.routes.length > 0 && { routes: c.routes }) };
  return {
    cniVersion: version,
    ...(ip4 && { ip4: render(ip4) }),
    ...(ip6 && { ip6: render(ip6) }),
    dns: dnsFields(r.dns),
  };
}

/**
 * The result as the JSON object of spec version `to` (https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#section-5-result-types). `result.cniVersion`
 * says which version the data is from; an empty one means 1.1.0 and an empty `to` 0.1.0, as
 * in the reference. Throws CniError code 1 for 'no converter for CNI result version X to Y'
 * and 'cannot convert: no valid IP addresses' (the reference's untyped error prints as 999;
 * we call a version mismatch by its name).
 */
export function convertResult(result: Result, to: string): object {
  const from = result.cniVersion === '' ? CURRENT_VERSION : result.cniVersion;
  const target = to === '' ? DEFAULT_VERSION : to;
  const ff = resultFamily(from);
  const tf = resultFamily(target);
  if (!isCniVersion(from) || !isCniVersion(target) || ff === undefined || tf === undefined) {
    throw new CniError(ErrorCode.IncompatibleCNIVersion, `no converter for CNI result version ${from} to ${target}`);
  }
  // Route attributes beyond dst/gw are kept unless a 0.1/0.2 converter sits on the way.
  const fullRoutes = (ff === '020') === (tf === '020');
  if (tf === '100') return to100(result, target, fullRoutes);
  if (tf === '040') return to040(result, target, fullRoutes);
  return to020(result, target, fullRoutes);
}

/** What a plugin prints on ADD: the result in `version`, 4-space indented like MarshalIndent. */
export function renderResult(result: Result, version: string): string {
  return goJSON(convertResult(result, version), '    ');
}
