// The ipvlan plugin's configuration (reference NetConf and loadConf,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/ipvlan/ipvlan.go),
// validated before anything touches the node. Chained after another plugin, the master is the
// one interface of its prevResult and the addresses may be its addresses.
import * as z from 'zod/mini';
import {
  cleanDNS,
  CniError,
  ErrorCode,
  isValidIfName,
  namedSchema,
  parseWithSchema,
  timed,
  type CniRequest,
  type DNS,
  type Result,
} from '../../lib/cni-spec/index.ts';
import type { IpvlanMode } from '../../lib/linux/index.ts';

export interface IpvlanConf {
  /**
   * `master`, or for ADD the interface prevResult names; absent: the default route's interface
   * (ADD) or not looked at (CHECK)
   */
  readonly master?: string;
  readonly mode: IpvlanMode;
  /** 0: the master's */
  readonly mtu: number;
  readonly linkInContainer: boolean;
  /** ipam.type; absent: the addresses come from prevResult */
  readonly ipamType?: string;
  /** the config's `dns`: the result's DNS (the reference replaces the IPAM's with it) */
  readonly dns?: DNS;
}

const MODES: readonly IpvlanMode[] = ['l2', 'l3', 'l3s'];

function buildSchema() {
  const strings = z.optional(z.array(z.string()));
  return z.object({
    master: z.optional(z.string()),
    mode: z.optional(z.string()),
    mtu: z.optional(z.int()),
    linkInContainer: z.optional(z.boolean()),
    ipam: z.optional(z.object({ type: z.optional(z.string()) })),
    dns: z.optional(z.object({ nameservers: strings, domain: z.optional(z.string()), search: strings, options: strings })),
  });
}

/** ipvlan's own fields; the bad-input generator derives its cases from it. */
export const ipvlanConfSchema = namedSchema('ipvlan', buildSchema);

export interface LoadOptions {
  /** ADD and CHECK: the values are checked. DEL, GC and STATUS read the types only, so DEL cleans up after any ADD. */
  forAdd?: boolean;
}

type Problem = { field: string; msg: string };

/** Throws CniError code 7 naming each field; the message is the first problem's. */
export function loadConf(req: CniRequest, o: LoadOptions = {}): IpvlanConf {
  return timed('config', () => parseConf(req, o));
}

function parseConf(req: CniRequest, o: LoadOptions): IpvlanConf {
  const raw = parseWithSchema(ipvlanConfSchema, req.config);
  const ipamType = raw.ipam?.type || undefined;
  if (!o.forAdd) return Object.freeze({ mode: 'l2', mtu: 0, linkInContainer: raw.linkInContainer === true, ...(ipamType && { ipamType }) });
  const problems: Problem[] = [];
  // CHECK's prevResult is this plugin's own result, whose interface is the ipvlan in the pod.
  const master = raw.master || (req.command === 'ADD' ? chainedMaster(req.prevResult, problems) : undefined);
  if (master && !isValidIfName(master))
    problems.push({ field: raw.master ? 'master' : 'prevResult.interfaces', msg: `invalid master name ${JSON.stringify(master)}` });
  const mode = raw.mode || 'l2';
  if (!MODES.includes(mode as IpvlanMode)) problems.push({ field: 'mode', msg: `unknown ipvlan mode: ${JSON.stringify(raw.mode)}` });
  // The reference would exec a plugin named "" after making the link, and leave the link.
  if (!ipamType && req.command === 'ADD' && !req.prevResult?.ips?.length) problems.push({ field: 'ipam.type', msg: 'no plugin name provided' });
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  const dns = cleanDNS(raw.dns);
  return Object.freeze({
    ...(master && { master }),
    mode: mode as IpvlanMode,
    mtu: raw.mtu ?? 0,
    linkInContainer: raw.linkInContainer === true,
    ...(ipamType && { ipamType }),
    ...(dns && { dns }),
  });
}

/** Chained without `master`: prevResult's one named interface (reference loadConf). */
function chainedMaster(prev: Result | undefined, problems: Problem[]): string | undefined {
  if (prev === undefined) return undefined;
  const ifaces = prev.interfaces ?? [];
  const only = ifaces.length === 1 ? ifaces[0]?.name : undefined;
  if (only) return only;
  problems.push({ field: 'prevResult.interfaces', msg: 'chained master failure. PrevResult lacks a single named interface' });
  return undefined;
}
