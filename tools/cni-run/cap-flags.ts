// The command line's capability flags turned into the capability arguments a Kubernetes
// runtime passes (containerd's CRI plugin through go-cni): portMappings for hostPorts,
// bandwidth from the pod's bandwidth annotations, ips, mac. Pure functions: the CLI and
// `validate` share them, and the unit tests pin the shapes.
import { canonicalCIDR, canonicalIP } from '../../lib/cni-spec/index.ts';
import { parseBitRate, QuantityError } from './quantity.ts';

/** A command-line value the user has to fix; the CLI exits with the usage status. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface PortMapping {
  readonly hostPort: number;
  readonly containerPort: number;
  readonly protocol: 'tcp' | 'udp' | 'sctp';
  readonly hostIP?: string;
}

const PORT_SPEC = /^(\d+):(\d+)(?:\/([A-Za-z]+))?(?:@(.+))?$/;

function port(text: string, what: string, spec: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new UsageError(`--port ${spec}: ${what} port ${text} is not between 1 and 65535`);
  return n;
}

/** `HOST:CONTAINER[/tcp|udp|sctp][@hostIP]`, e.g. 8080:80, 5353:53/udp, 8443:443/tcp@127.0.0.1, 80:80@[::1]. */
export function parsePort(spec: string): PortMapping {
  const m = PORT_SPEC.exec(spec);
  if (!m) throw new UsageError(`--port ${spec}: expected HOST:CONTAINER[/tcp|udp|sctp][@hostIP], e.g. 8080:80/tcp`);
  const [, host = '', container = '', proto = 'tcp', ip] = m;
  const protocol = proto.toLowerCase();
  if (protocol !== 'tcp' && protocol !== 'udp' && protocol !== 'sctp') throw new UsageError(`--port ${spec}: protocol ${proto} is not tcp, udp or sctp`);
  let hostIP: string | undefined;
  if (ip !== undefined) {
    const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
    hostIP = canonicalIP(bare);
    if (hostIP === undefined) throw new UsageError(`--port ${spec}: ${ip} is not an IP address`);
  }
  return { hostPort: port(host, 'host', spec), containerPort: port(container, 'container', spec), protocol, ...(hostIP !== undefined && { hostIP }) };
}

/** What containerd passes as the burst when the pod names only a rate ("no burst given"). */
export const RUNTIME_DEFAULT_BURST = 4294967295;

export interface Bandwidth {
  readonly ingressRate?: number;
  readonly ingressBurst?: number;
  readonly egressRate?: number;
  readonly egressBurst?: number;
}

const BANDWIDTH_KEYS = ['in', 'out', 'inburst', 'outburst'] as const;
type BandwidthKey = (typeof BANDWIDTH_KEYS)[number];

/**
 * `in=10M,out=10M[,inburst=…,outburst=…]`: rates in bits/s and bursts in bits, as Kubernetes
 * quantities. `in` is traffic into the pod (the ingress annotation), `out` traffic out of it.
 * A direction without its burst gets containerd's 2^32−1, exactly what a pod with the
 * annotations gets on a containerd node.
 */
export function parseBandwidth(spec: string): Bandwidth {
  const values: Partial<Record<BandwidthKey, number>> = {};
  for (const part of spec.split(',')) {
    const [key = '', value, ...rest] = part.split('=');
    const k = key.trim().toLowerCase();
    if (!(BANDWIDTH_KEYS as readonly string[]).includes(k) || value === undefined || value === '' || rest.length > 0) {
      throw new UsageError(`--bandwidth ${spec}: expected in=RATE,out=RATE[,inburst=BITS,outburst=BITS], e.g. in=10M,out=10M (got ${JSON.stringify(part)})`);
    }
    if (values[k as BandwidthKey] !== undefined) throw new UsageError(`--bandwidth ${spec}: ${k} given twice`);
    try {
      values[k as BandwidthKey] = parseBitRate(value);
    } catch (err) {
      if (err instanceof QuantityError) throw new UsageError(`--bandwidth ${spec}: ${k}: ${err.message}`);
      throw err;
    }
  }
  for (const [burst, rate] of [
    ['inburst', 'in'],
    ['outburst', 'out'],
  ] as const) {
    if (values[burst] !== undefined && values[rate] === undefined) throw new UsageError(`--bandwidth ${spec}: ${burst} needs ${rate}`);
  }
  if (values.in === undefined && values.out === undefined) throw new UsageError(`--bandwidth ${spec}: give in=RATE, out=RATE or both`);
  return {
    ...(values.in !== undefined && { ingressRate: values.in, ingressBurst: values.inburst ?? RUNTIME_DEFAULT_BURST }),
    ...(values.out !== undefined && { egressRate: values.out, egressBurst: values.outburst ?? RUNTIME_DEFAULT_BURST }),
  };
}

/** `CIDR[,CIDR]` (an address alone is accepted too): the addresses the pod asks its IPAM for. */
export function parseIps(spec: string): string[] {
  return spec.split(',').map((s) => {
    const ip = s.trim();
    if (canonicalCIDR(ip) === undefined && canonicalIP(ip) === undefined)
      throw new UsageError(`--ips ${spec}: ${JSON.stringify(ip)} is not an IP address or CIDR`);
    return ip;
  });
}

const MAC = /^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/;

export function parseMac(spec: string): string {
  if (!MAC.test(spec)) throw new UsageError(`--mac ${spec}: expected six hex pairs separated by ":", e.g. 02:42:ac:11:00:02`);
  return spec.toLowerCase();
}

/** `K=V;K=V` as CNI_ARGS pairs; like cnitool, an empty key or value is refused. `from` names the source in messages. */
export function parseCniArgs(spec: string | undefined, from = '--args'): [string, string][] {
  if (spec === undefined || spec === '') return [];
  return spec.split(';').map((pair) => {
    const at = pair.indexOf('=');
    const k = pair.slice(0, at);
    const v = pair.slice(at + 1);
    if (at <= 0 || v === '') throw new UsageError(`${from}: invalid CNI_ARGS pair ${JSON.stringify(pair)}: expected KEY=VALUE`);
    return [k, v];
  });
}

export interface CapabilityFlags {
  readonly capArgs?: string;
  readonly port?: readonly string[];
  readonly bandwidth?: string;
  readonly ips?: string;
  readonly mac?: string;
}

/** The flag that set each capability key, for messages ("--port sets portMappings, which …"). */
export type CapabilitySources = Record<string, string>;

function jsonObject(text: string, from: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${from}: not JSON: ${(err as Error).message}`);
  }
  // Go unmarshals `null` into an empty map.
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${from}: expected a JSON object, e.g. {"portMappings":[…]}`);
  return parsed as Record<string, unknown>;
}

/**
 * The capability arguments of the command line: --cap-args (a JSON object) plus the flags; a
 * key set both ways is refused rather than silently merged. Under them, `envCapArgs` (the
 * CAP_ARGS variable cnitool reads, a JSON object): a key the command line sets replaces it.
 */
export function capabilityArgs(f: CapabilityFlags, envCapArgs?: string): { args: Record<string, unknown>; sources: CapabilitySources } {
  const args: Record<string, unknown> = {};
  const sources: CapabilitySources = {};
  if (f.capArgs !== undefined) {
    for (const [k, v] of Object.entries(jsonObject(f.capArgs, '--cap-args'))) {
      args[k] = v;
      sources[k] = '--cap-args';
    }
  }
  const set = (key: string, flag: string, value: unknown) => {
    if (sources[key] !== undefined) throw new UsageError(`${flag} and ${sources[key]} both set the ${key} capability: give it once`);
    args[key] = value;
    sources[key] = flag;
  };
  if (f.port !== undefined && f.port.length > 0) set('portMappings', '--port', f.port.map(parsePort));
  if (f.bandwidth !== undefined) set('bandwidth', '--bandwidth', parseBandwidth(f.bandwidth));
  if (f.ips !== undefined) set('ips', '--ips', parseIps(f.ips));
  if (f.mac !== undefined) set('mac', '--mac', parseMac(f.mac));
  // cnitool reads the variable only when it is not empty.
  if (envCapArgs !== undefined && envCapArgs !== '') {
    for (const [k, v] of Object.entries(jsonObject(envCapArgs, 'CAP_ARGS (environment)'))) {
      if (sources[k] !== undefined) continue;
      args[k] = v;
      sources[k] = 'CAP_ARGS';
    }
  }
  return { args, sources };
}
