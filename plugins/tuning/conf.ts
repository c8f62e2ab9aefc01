// The tuning plugin's configuration (reference TuningConf and parseConf,
// https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/tuning/tuning.go; txQLen
// from v1.4.0), validated and resolved before anything touches the container.
//
// Where a value comes from, later wins as in the reference: the top-level key, then CNI_ARGS
// MAC=, then runtimeConfig.mac (the `mac` capability), then args.cni.*. args.cni.sysctl adds to
// (and overrides keys of) the top-level sysctl map.
import { existsSync, readFileSync } from 'node:fs';
import * as z from 'zod/mini';
import { CniError, ErrorCode, namedSchema, parseCniArgs, parseWithSchema, timed, type CniRequest } from '../../lib/cni-spec/index.ts';
import { formatMac, isUnicastMac, parseMac, sysctlPath } from '../../lib/linux/index.ts';
import { allowlistProblem, parseAllowlist, planSysctlPath, sysctlValueProblem, type PlannedSysctl } from './sysctl-plan.ts';

export const DEFAULT_DATA_DIR = '/run/cni/tuning';
const ALLOWLIST = '/etc/cni/tuning/allowlist.conf';
const MTU_MAX = 65535;
const TXQLEN_MAX = 2 ** 32 - 1;

export interface TuningConf {
  readonly dataDir: string;
  /** in the order the config lists them */
  readonly sysctls: readonly PlannedSysctl[];
  /** normalised, lower case with colons, as the kernel prints it */
  readonly mac?: string;
  /** only `true` changes anything: the reference never turns promiscuous mode off */
  readonly promisc: boolean;
  readonly mtu?: number;
  readonly allmulti?: boolean;
  readonly txQLen?: number;
}

function buildSchema() {
  const attrs = {
    mac: z.optional(z.string()),
    promisc: z.optional(z.boolean()),
    mtu: z.optional(z.int()),
    allmulti: z.optional(z.boolean()),
    txQLen: z.optional(z.int()),
  };
  const sysctl = z.optional(z.record(z.string(), z.string()));
  return z.object({
    dataDir: z.optional(z.string()),
    sysctl,
    ...attrs,
    runtimeConfig: z.optional(z.object({ mac: z.optional(z.string()) })),
    args: z.optional(z.object({ cni: z.optional(z.object({ sysctl, ...attrs })) })),
  });
}

/** tuning's own fields; the bad-input generator derives its cases from it. */
export const tuningConfSchema = namedSchema('tuning', buildSchema);

interface Problem {
  field: string;
  msg: string;
}

export interface LoadOptions {
  /** DEL reads only where the saved values are: a config ADD refused must not block its DEL */
  forDel?: boolean;
}

export function loadConf(req: CniRequest, o: LoadOptions = {}): TuningConf {
  return timed('config', () => parseConf(req, o));
}

function parseConf(req: CniRequest, o: LoadOptions): TuningConf {
  const raw = parseWithSchema(tuningConfSchema, req.config);
  // The reference's DEL parses CNI_ARGS too (parseConf), and fails on a malformed one.
  const { MAC: envMac } = parseCniArgs(req.args, ['MAC']);
  if (o.forDel) return Object.freeze({ dataDir: raw.dataDir || DEFAULT_DATA_DIR, sysctls: [], promisc: false });
  const a = raw.args?.cni;
  const problems: Problem[] = [];
  const macSource = pickLast([
    ['mac', raw.mac],
    ['CNI_ARGS MAC', envMac],
    ['runtimeConfig.mac', raw.runtimeConfig?.mac],
    ['args.cni.mac', a?.mac],
  ]);
  let mac: string | undefined;
  if (macSource) {
    const bytes = parseMac(macSource[1]);
    if (!bytes) problems.push({ field: macSource[0], msg: `invalid args ${macSource[1]} for MAC addr` });
    else if (!isUnicastMac(bytes)) problems.push({ field: macSource[0], msg: `MAC address ${JSON.stringify(macSource[1])} is not a unicast address` });
    else mac = formatMac(bytes);
  }
  const mtu = a?.mtu ?? raw.mtu;
  if (mtu !== undefined && (mtu < 0 || mtu > MTU_MAX)) problems.push({ field: a?.mtu !== undefined ? 'args.cni.mtu' : 'mtu', msg: `invalid MTU ${mtu}` });
  const txQLen = a?.txQLen ?? raw.txQLen;
  if (txQLen !== undefined && (txQLen < 0 || txQLen > TXQLEN_MAX)) {
    problems.push({ field: a?.txQLen !== undefined ? 'args.cni.txQLen' : 'txQLen', msg: `invalid txQLen ${txQLen}` });
  }
  const sysctls = planSysctls(
    [
      ['sysctl', raw.sysctl ?? {}],
      ['args.cni.sysctl', a?.sysctl ?? {}],
    ],
    req.ifname,
    problems,
  );
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  const allmulti = a?.allmulti ?? raw.allmulti;
  return Object.freeze({
    dataDir: raw.dataDir || DEFAULT_DATA_DIR,
    sysctls: Object.freeze(sysctls),
    ...(mac !== undefined && { mac }),
    promisc: (a?.promisc ?? raw.promisc) === true,
    ...(mtu ? { mtu } : {}),
    ...(allmulti !== undefined && { allmulti }),
    ...(txQLen !== undefined && { txQLen }),
  });
}

/** The last source that sets a non-empty value, with its field name. */
function pickLast(sources: [string, string | undefined][]): [string, string] | undefined {
  let chosen: [string, string] | undefined;
  for (const [field, v] of sources) if (v !== undefined && v !== '') chosen = [field, v];
  return chosen;
}

/**
 * The sysctls of both maps, args.cni.sysctl's replacing the top level's that name the same file.
 * Two keys of one map naming one file (`a.b` and `a/b`, or `IFNAME` and the interface's name) are
 * refused: the reference writes both, in Go's random map order, so which value stays is chance.
 */
function planSysctls(sources: Array<[field: string, map: Record<string, string>]>, ifname: string, problems: Problem[]): PlannedSysctl[] {
  const anyKeys = sources.some(([, map]) => Object.keys(map).length > 0);
  const allowlist = anyKeys && existsSync(ALLOWLIST) ? parseAllowlist(readFileSync(ALLOWLIST, 'utf8')) : undefined;
  const byPath = new Map<string, PlannedSysctl>();
  for (const [field, map] of sources) {
    const seen = new Map<string, string>();
    for (const [key, value] of Object.entries(map)) {
      const denied = allowlist && allowlistProblem(key, allowlist);
      if (denied) {
        problems.push({ field: `${field}.${key}`, msg: denied });
        continue;
      }
      const p = planSysctlPath(key, ifname);
      if ('msg' in p || !validPath(p.path)) {
        problems.push({ field: `${field}.${key}`, msg: 'msg' in p ? p.msg : `invalid net sysctl key: ${JSON.stringify(p.path)}` });
        continue;
      }
      const badValue = sysctlValueProblem(key, value);
      if (badValue) {
        problems.push({ field: `${field}.${key}`, msg: badValue });
        continue;
      }
      const twin = seen.get(p.path);
      if (twin !== undefined) {
        problems.push({ field: `${field}.${key}`, msg: `sysctl keys ${JSON.stringify(twin)} and ${JSON.stringify(key)} name the same setting (${p.path})` });
        continue;
      }
      seen.set(p.path, key);
      byPath.delete(p.path);
      byPath.set(p.path, Object.freeze({ key, path: p.path, value }));
    }
  }
  return [...byPath.values()];
}

/** What our sysctl writer accepts (no segment it could not name safely). */
function validPath(path: string): boolean {
  try {
    sysctlPath(path);
    return true;
  } catch {
    return false;
  }
}

/** Anything for ADD to save and DEL to restore. */
export const changesLink = (c: TuningConf): boolean =>
  c.mac !== undefined || c.mtu !== undefined || c.promisc || c.allmulti !== undefined || c.txQLen !== undefined;
