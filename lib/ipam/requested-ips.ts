// Addresses a runtime asks host-local for (reference https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/host-local/backend/allocator/config.go): CNI_ARGS
// `IP`, `args.cni.ips` and `runtimeConfig.ips` are all collected — unlike static, where the
// sources replace each other. A prefix length is accepted and ignored.
import { CniError, ErrorCode, parseCniArgs } from '../cni-spec/index.ts';
import { formatAddr, type Addr } from './addr.ts';
import { configError } from './problem.ts';
import { parseRequestedIp } from './schema-parts.ts';

export interface RequestedSources {
  /** CNI_ARGS as received */
  readonly cniArgs: string;
  /** decoded `args.cni.ips`; null is an entry that decoded to an empty IP */
  readonly argsIps?: readonly (Addr | null)[] | undefined;
  readonly runtimeIps?: readonly (Addr | null)[] | undefined;
}

function fromCniArgs(cniArgs: string): Addr | undefined {
  if (cniArgs === '') return undefined;
  const v = parseCniArgs(cniArgs, ['IP'])['IP'];
  if (v === undefined || v === '') return undefined;
  const ip = parseRequestedIp(v);
  // Same code as parseCniArgs' own errors: CNI_ARGS is not the network config.
  if (ip === undefined) throw new CniError(ErrorCode.Internal, `ARGS: error parsing value of pair ${JSON.stringify(`IP=${v}`)}: invalid IP address ${v}`);
  return ip;
}

/** Every requested address once, in the order CNI_ARGS, args, runtimeConfig. */
export function collectRequestedIps(src: RequestedSources): Addr[] {
  const all: { ip: Addr | null; path: string }[] = [];
  const env = fromCniArgs(src.cniArgs);
  if (env !== undefined) all.push({ ip: env, path: 'CNI_ARGS' });
  src.argsIps?.forEach((ip, i) => all.push({ ip, path: `args.cni.ips[${i}]` }));
  src.runtimeIps?.forEach((ip, i) => all.push({ ip, path: `runtimeConfig.ips[${i}]` }));
  const seen = new Map<string, Addr>();
  for (const { ip, path } of all) {
    if (ip === null) throw configError('cannot understand ip: IP <nil> not v4 nor v6', path);
    seen.set(formatAddr(ip), ip);
  }
  return [...seen.values()];
}
