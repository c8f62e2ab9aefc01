// The options a client sends (the config's `provide` and `request`) and what a lease's ACK
// means for the CNI result (address, gateway, routes, times). Pure. As the reference
// (https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/ipam/dhcp/lease.go and options.go).
import type { Route } from '../cni-spec/result.ts';
import { bytesToIp, type DhcpMessage, Opt } from './message.ts';

/** dhcp-options(5) names the reference takes besides a number (0–255). */
const OPTION_NAMES: Readonly<Record<string, number>> = {
  'dhcp-client-identifier': Opt.ClientId,
  'subnet-mask': Opt.SubnetMask,
  routers: Opt.Router,
  'host-name': Opt.HostName,
  'user-class': 77,
  'vendor-class-identifier': 60,
};

export class DhcpOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DhcpOptionError';
  }
}

export function parseOptionName(option: string): number {
  const named = OPTION_NAMES[option];
  if (named !== undefined) return named;
  // strconv.ParseUint(option, 10, 8)
  const digits = /^[0-9]+$/.test(option);
  if (!digits || Number(option) > 255) {
    const why = digits ? 'value out of range' : 'invalid syntax';
    throw new DhcpOptionError(
      `Can not parse option ${JSON.stringify(option)}: Can not parse option: strconv.ParseUint: parsing ${JSON.stringify(option)}: ${why}`,
    );
  }
  return Number(option);
}

export interface ProvideOption {
  option: string;
  value?: string | undefined;
  fromArg?: string | undefined;
}
export interface RequestOption {
  option?: string | undefined;
  skipDefault?: boolean | undefined;
}

/** The reference's requestOptionsDefault. */
const REQUEST_DEFAULT = [Opt.Router, Opt.SubnetMask];

/**
 * The options every message of a lease carries besides the client identifier: the `provide`
 * values (literal, or from CNI_ARGS by `fromArg`) and the parameter request list (option 55).
 */
export function prepareOptions(cniArgs: string, provide: readonly ProvideOption[], request: readonly RequestOption[]): Map<number, Buffer> {
  const args = new Map<string, string>();
  for (const pair of cniArgs.split(';')) {
    const eq = pair.indexOf('=');
    if (eq >= 0) args.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const opts = new Map<number, Buffer>();
  for (const p of provide) {
    const code = parseOptionName(p.option);
    if (p.value !== undefined && p.value.length > 0) {
      if (p.value.length > 255) throw new DhcpOptionError(`value too long for option ${JSON.stringify(p.option)}: ${JSON.stringify(p.value)}`);
      opts.set(code, Buffer.from(p.value));
    }
    const fromArg = p.fromArg === undefined ? undefined : args.get(p.fromArg);
    if (fromArg !== undefined) {
      if (fromArg.length > 255)
        throw new DhcpOptionError(
          `value too long for option ${JSON.stringify(p.option)} from CNI_ARGS ${JSON.stringify(p.fromArg)}: ${JSON.stringify(fromArg)}`,
        );
      opts.set(code, Buffer.from(fromArg));
    }
  }
  const wanted: number[] = [];
  let skipDefault = false;
  for (const r of request) {
    if (r.skipDefault) skipDefault = true;
    if (!r.option) continue;
    const code = parseOptionName(r.option);
    if (!wanted.includes(code)) wanted.push(code);
  }
  if (!skipDefault) for (const code of REQUEST_DEFAULT) if (!wanted.includes(code)) wanted.push(code);
  if (wanted.length > 0) opts.set(Opt.ParameterList, Buffer.from(wanted));
  return opts;
}

/** The reference's generateClientID: the lease's key and, after a 0 type byte, option 61. */
export function clientIdOf(containerId: string, network: string, ifname: string): string {
  return `${containerId}/${network}/${ifname}`.slice(0, 254);
}

function prefixOf(mask: Buffer): number | undefined {
  const n = mask.readUInt32BE(0);
  for (let p = 0; p <= 32; p++) if ((p === 0 ? 0 : (0xffffffff << (32 - p)) >>> 0) === n) return p;
  return undefined;
}

/** The lease's address with its prefix; the reference fails without a subnet mask. */
export function leaseAddress(ack: DhcpMessage): string {
  const mask = ack.options.get(Opt.SubnetMask);
  if (mask?.length !== 4) throw new DhcpOptionError('DHCP option Subnet Mask not found in DHCPACK');
  const prefix = prefixOf(mask);
  if (prefix === undefined) throw new DhcpOptionError(`DHCP option Subnet Mask ${bytesToIp(mask)} is not a prefix`);
  return `${ack.yiaddr}/${prefix}`;
}

export function leaseGateway(ack: DhcpMessage): string | undefined {
  const routers = ack.options.get(Opt.Router);
  return routers && routers.length >= 4 ? bytesToIp(routers) : undefined;
}

/** Option 121 (RFC 3442): width, the significant bytes of the destination, the router. */
function classlessRoutes(v: Buffer): Route[] {
  const routes: Route[] = [];
  for (let off = 0; off < v.length;) {
    const width = v[off] as number;
    const significant = Math.ceil(width / 8);
    if (width > 32 || off + 1 + significant + 4 > v.length) break;
    const dst = Buffer.alloc(4);
    v.copy(dst, 0, off + 1, off + 1 + significant);
    const gw = bytesToIp(v, off + 1 + significant);
    // An unspecified router means on-link: scope link, so the route can be installed.
    routes.push(gw === '0.0.0.0' ? { dst: `${bytesToIp(dst)}/${width}`, gw, scope: 253 } : { dst: `${bytesToIp(dst)}/${width}`, gw });
    off += 1 + significant + 4;
  }
  return routes;
}

/** Option 33: destination and router pairs, each destination with its classful mask. */
function staticRoutes(v: Buffer): Route[] {
  const routes: Route[] = [];
  for (let off = 0; off + 8 <= v.length; off += 8) {
    const first = v[off] as number;
    // Go's net.IP.DefaultMask: none for class D and E, which cannot be route destinations.
    const prefix = first < 128 ? 8 : first < 192 ? 16 : first < 224 ? 24 : undefined;
    if (prefix === undefined) continue;
    routes.push({ dst: `${bytesToIp(v, off)}/${prefix}`, gw: bytesToIp(v, off + 4) });
  }
  return routes;
}

/** The reference's Routes(): option 121 alone when present (RFC 3442), else option 33's and a default route via the router. */
export function leaseRoutes(ack: DhcpMessage, priority = 0): Route[] {
  const opt121 = ack.options.get(Opt.ClasslessRoutes);
  let routes = opt121 ? classlessRoutes(opt121) : [];
  if (routes.length === 0) {
    const opt33 = ack.options.get(Opt.StaticRoutes);
    routes = opt33 ? staticRoutes(opt33) : [];
    const gw = leaseGateway(ack);
    if (gw !== undefined) routes.push({ dst: '0.0.0.0/0', gw });
  }
  return priority === 0 ? routes : routes.map((r) => ({ ...r, priority }));
}

export interface LeaseTimes {
  /** ms since the epoch */
  renewAt: number;
  rebindAt: number;
  expireAt: number;
}

const DEFAULT_LEASE_S = 3600;

/** The reference's commit(): T1 and T2 from options 58 and 59, else half and 85% of the lease (default one hour). */
export function leaseTimes(ack: DhcpMessage, now: number): LeaseTimes {
  const seconds = (code: number): number | undefined => {
    const v = ack.options.get(code);
    return v?.length === 4 ? v.readUInt32BE(0) : undefined;
  };
  const lease = seconds(Opt.LeaseTime) ?? DEFAULT_LEASE_S;
  const rebind = seconds(Opt.RebindingTime) ?? (lease * 85) / 100;
  const renew = seconds(Opt.RenewalTime) ?? lease / 2;
  return { renewAt: now + renew * 1000, rebindAt: now + rebind * 1000, expireAt: now + lease * 1000 };
}
