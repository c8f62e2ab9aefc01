// The macvlan plugin's configuration (reference NetConf and MacEnvArgs,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/macvlan/macvlan.go),
// validated before anything touches the node. What needs the kernel (the master, its MTU) is
// resolved by add.ts and check.ts before their first change.
import * as z from 'zod/mini';
import {
  cleanDNS,
  CniError,
  ErrorCode,
  isValidIfName,
  namedSchema,
  parseCniArgs,
  parseWithSchema,
  timed,
  type CniRequest,
  type DNS,
} from '../../lib/cni-spec/index.ts';
import { formatMac, isUnicastMac, parseMac, type MacvlanMode } from '../../lib/linux/index.ts';

export interface MacvlanConf {
  /** `master`; absent: the default route's interface */
  readonly master?: string;
  readonly mode: MacvlanMode;
  /** 0: the master's */
  readonly mtu: number;
  /** the container interface's MAC, normalised; absent: the kernel's random one */
  readonly mac?: string;
  readonly linkInContainer: boolean;
  /** IFLA_MACVLAN_BC_QUEUE_LEN; 0: the kernel's default */
  readonly bcQueueLen: number;
  /** ipam.type; absent: L2 only, the interface comes up without an address */
  readonly ipamType?: string;
  /** the config's `dns`: the result's DNS (the reference replaces the IPAM's with it) */
  readonly dns?: DNS;
}

const MODES: readonly MacvlanMode[] = ['bridge', 'private', 'vepa', 'passthru'];
const UINT32_MAX = 2 ** 32 - 1;

function buildSchema() {
  const strings = z.optional(z.array(z.string()));
  return z.object({
    master: z.optional(z.string()),
    mode: z.optional(z.string()),
    mtu: z.optional(z.int()),
    mac: z.optional(z.string()),
    linkInContainer: z.optional(z.boolean()),
    bcqueuelen: z.optional(z.int()),
    ipam: z.optional(z.object({ type: z.optional(z.string()) })),
    dns: z.optional(z.object({ nameservers: strings, domain: z.optional(z.string()), search: strings, options: strings })),
    runtimeConfig: z.optional(z.object({ mac: z.optional(z.string()) })),
  });
}

/** macvlan's own fields; the bad-input generator derives its cases from it. */
export const macvlanConfSchema = namedSchema('macvlan', buildSchema);

type Problem = { field: string; msg: string };

export interface LoadOptions {
  /**
   * ADD and CHECK: the values are checked. DEL, GC and STATUS read the types only (the reference
   * unmarshals nothing more there), so DEL cleans up after any ADD.
   */
  forAdd?: boolean;
}

/** Throws CniError code 7 naming each field; the message is the first problem's. */
export function loadConf(req: CniRequest, o: LoadOptions = {}): MacvlanConf {
  return timed('config', () => parseConf(req, o));
}

function parseConf(req: CniRequest, o: LoadOptions): MacvlanConf {
  const raw = parseWithSchema(macvlanConfSchema, req.config);
  const problems: Problem[] = [];
  const ipamType = raw.ipam?.type || undefined;
  // CNI_ARGS is read by every verb that gets one, as the Go plugin does: garbage is refused.
  const { MAC: argsMac } = parseCniArgs(req.args, ['MAC']);
  if (!o.forAdd) return Object.freeze({ mode: 'bridge', mtu: 0, linkInContainer: raw.linkInContainer === true, bcQueueLen: 0, ...(ipamType && { ipamType }) });
  if (raw.master && !isValidIfName(raw.master)) problems.push({ field: 'master', msg: `invalid master name ${JSON.stringify(raw.master)}` });
  const mode = raw.mode || 'bridge';
  if (!MODES.includes(mode as MacvlanMode)) problems.push({ field: 'mode', msg: `unknown macvlan mode: ${JSON.stringify(raw.mode)}` });
  const bcQueueLen = raw.bcqueuelen ?? 0;
  if (bcQueueLen < 0 || bcQueueLen > UINT32_MAX)
    problems.push({ field: 'bcqueuelen', msg: `invalid bcqueuelen ${bcQueueLen} (must be between 0 and ${UINT32_MAX})` });
  // The later source wins: the config's mac, then CNI_ARGS MAC, then runtimeConfig.mac.
  const [field, macText] = raw.runtimeConfig?.mac ? ['runtimeConfig.mac', raw.runtimeConfig.mac] : argsMac ? ['CNI_ARGS MAC', argsMac] : ['mac', raw.mac ?? ''];
  const mac = pickMac(field, macText, problems);
  // Without IPAM the result has no address, which a 0.1.0 or 0.2.0 result cannot express: the
  // reference finds out when printing, after making the link, and leaves it behind.
  if (!ipamType && req.command === 'ADD' && (req.cniVersion === '0.1.0' || req.cniVersion === '0.2.0')) {
    throw new CniError(ErrorCode.IncompatibleCNIVersion, 'cannot convert: no valid IP addresses');
  }
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  const dns = cleanDNS(raw.dns);
  return Object.freeze({
    ...(raw.master && { master: raw.master }),
    mode: mode as MacvlanMode,
    mtu: raw.mtu ?? 0,
    ...(mac && { mac }),
    linkInContainer: raw.linkInContainer === true,
    bcQueueLen,
    ...(ipamType && { ipamType }),
    ...(dns && { dns }),
  });
}

// The kernel refuses a multicast or all-zero address (is_valid_ether_addr) only when the link is made.
function pickMac(field: string, text: string, problems: Problem[]): string | undefined {
  if (text === '') return undefined;
  const bytes = parseMac(text);
  if (!bytes) problems.push({ field, msg: `invalid args ${text} for MAC addr: address ${text}: invalid MAC address` });
  else if (!isUnicastMac(bytes)) problems.push({ field, msg: `MAC address ${JSON.stringify(text)} is not a unicast address` });
  else return formatMac(bytes);
  return undefined;
}
