// The tap plugin's configuration (reference NetConf and loadConf,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/tap/tap.go), validated
// and resolved before anything touches the container.
//
// The MAC comes from, later winning as in the reference: `mac`, then CNI_ARGS MAC=, then
// runtimeConfig.mac (the `mac` capability). `owner` and `group` are Go uint32s. No ipam.type
// makes an L2-only tap.
import * as z from 'zod/mini';
import { cleanDNS, CniError, ErrorCode, namedSchema, parseCniArgs, parseWithSchema, timed, type CniRequest, type DNS } from '../../lib/cni-spec/index.ts';
import { formatMac, isUnicastMac, parseMac } from '../../lib/linux/index.ts';
import { tapMtuProblem } from './tap-plan.ts';

export interface TapConf {
  readonly multiQueue: boolean;
  /** unset: the kernel's default */
  readonly mtu?: number;
  /** normalised, lower case with colons, as the kernel prints it */
  readonly mac?: string;
  readonly owner?: number;
  readonly group?: number;
  readonly selinuxContext?: string;
  /** a bridge in the container's netns to make the tap a port of */
  readonly bridge?: string;
  /** '' for an L2-only tap */
  readonly ipamType: string;
  /** the config's `dns`: the result's DNS, whatever the IPAM says (as the reference) */
  readonly dns?: DNS;
}

const UINT32_MAX = 2 ** 32 - 1;

function buildSchema() {
  const strings = z.optional(z.array(z.string()));
  return z.object({
    multiQueue: z.optional(z.boolean()),
    mtu: z.optional(z.int()),
    mac: z.optional(z.string()),
    owner: z.optional(z.int()),
    group: z.optional(z.int()),
    selinuxContext: z.optional(z.string()),
    bridge: z.optional(z.string()),
    args: z.optional(z.object({})),
    runtimeConfig: z.optional(z.object({ mac: z.optional(z.string()) })),
    ipam: z.optional(z.object({ type: z.optional(z.string()) })),
    dns: z.optional(z.object({ nameservers: strings, domain: z.optional(z.string()), search: strings, options: strings })),
  });
}

/** tap's own fields; the bad-input generator derives its cases from it. */
export const tapConfSchema = namedSchema('tap', buildSchema);

export interface LoadOptions {
  /** ADD also refuses values the kernel would refuse; DEL must still clean up after such an ADD */
  forAdd?: boolean;
}

interface Problem {
  field: string;
  msg: string;
}

export function loadConf(req: CniRequest, o: LoadOptions = {}): TapConf {
  return timed('config', () => parseConf(req, o));
}

function parseConf(req: CniRequest, o: LoadOptions): TapConf {
  const raw = parseWithSchema(tapConfSchema, req.config);
  // The reference parses CNI_ARGS in every verb, and fails on a malformed one.
  const { MAC: envMac } = parseCniArgs(req.args, ['MAC']);
  const problems: Problem[] = [];
  for (const field of ['owner', 'group'] as const) {
    const v = raw[field];
    if (v !== undefined && (v < 0 || v > UINT32_MAX)) problems.push({ field, msg: `${field} ${v} is not a uint32` });
  }
  const mac = o.forAdd
    ? pickMac(
        [
          ['mac', raw.mac],
          ['CNI_ARGS MAC', envMac],
          ['runtimeConfig.mac', raw.runtimeConfig?.mac],
        ],
        problems,
      )
    : undefined;
  const mtuProblem = o.forAdd && raw.mtu !== undefined ? tapMtuProblem(raw.mtu) : undefined;
  if (mtuProblem) problems.push({ field: 'mtu', msg: mtuProblem });
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  const dns = cleanDNS(raw.dns);
  return Object.freeze({
    multiQueue: raw.multiQueue === true,
    ...(raw.mtu ? { mtu: raw.mtu } : {}),
    ...(mac !== undefined && { mac }),
    ...(raw.owner !== undefined && { owner: raw.owner }),
    ...(raw.group !== undefined && { group: raw.group }),
    ...(raw.selinuxContext ? { selinuxContext: raw.selinuxContext } : {}),
    ...(raw.bridge ? { bridge: raw.bridge } : {}),
    ipamType: raw.ipam?.type ?? '',
    ...(dns && { dns }),
  });
}

/** The last source that sets a non-empty MAC, checked: the kernel takes only a unicast one. */
function pickMac(sources: [string, string | undefined][], problems: Problem[]): string | undefined {
  let chosen: [string, string] | undefined;
  for (const [field, v] of sources) if (v !== undefined && v !== '') chosen = [field, v];
  if (!chosen) return undefined;
  const [field, text] = chosen;
  const bytes = parseMac(text);
  if (!bytes || bytes.length !== 6) problems.push({ field, msg: `invalid args ${text} for MAC addr` });
  else if (!isUnicastMac(bytes)) problems.push({ field, msg: `MAC address ${JSON.stringify(text)} is not a unicast address` });
  else return formatMac(bytes);
  return undefined;
}
