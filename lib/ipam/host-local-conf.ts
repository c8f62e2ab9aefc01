// host-local's config, loaded and checked before anything touches the disk (docs/architecture.md#conventions:
// after loadHostLocalConf nothing fails for a config reason). Messages are the reference's
// LoadIPAMConfig ones; each carries the config path of the field at fault.
import { join } from 'node:path';
import { cleanRoute, compareVersions, parseWithSchema, type CniRequest, type Route } from '../cni-spec/index.ts';
import type { Addr } from './addr.ts';
import { hostLocalSchema, type HostLocalRaw } from './host-local-schema.ts';
import { ConfigProblem, configError } from './problem.ts';
import { canonicalizeRangeSet, isV4Set, setsOverlap, type RangeSet } from './range-set.ts';
import type { RawRange } from './range.ts';
import { collectRequestedIps } from './requested-ips.ts';

export const DEFAULT_DATA_DIR = '/var/lib/cni/networks';

export interface HostLocalConf {
  readonly name: string;
  /** `<dataDir>/<network name>`: the allocations of this network */
  readonly dir: string;
  readonly resolvConf?: string;
  readonly routes: readonly Route[];
  readonly rangeSets: readonly RangeSet[];
  readonly requested: readonly Addr[];
  /** `ipam.failStatusWhenFull`: STATUS reports a full range set as code 50 */
  readonly failStatusWhenFull: boolean;
}

interface RawSet {
  ranges: readonly RawRange[];
  path: string;
  rangePath: (i: number) => string;
}

/** runtimeConfig.ipRanges, then the old single range, then `ranges`: the reference's order. */
function rawSets(raw: HostLocalRaw): RawSet[] {
  const ipam = raw.ipam ?? {};
  const list = (sets: RawRange[][] | undefined, at: string): RawSet[] =>
    (sets ?? []).map((ranges, k) => ({ ranges, path: `${at}[${k}]`, rangePath: (i) => `${at}[${k}][${i}]` }));
  const out = list(raw.runtimeConfig?.ipRanges, 'runtimeConfig.ipRanges');
  // The old top-level range counts only when it names a subnet.
  if (ipam.subnet !== undefined) {
    const { subnet, rangeStart, rangeEnd, gateway } = ipam;
    out.push({ ranges: [{ subnet, rangeStart, rangeEnd, gateway }], path: 'ipam', rangePath: () => 'ipam' });
  }
  return [...out, ...list(ipam.ranges, 'ipam.ranges')];
}

function atLeast030(version: string): boolean {
  try {
    return compareVersions(version, '0.3.0') >= 0;
  } catch {
    return false;
  }
}

function checkRangeSets(sets: RawSet[], cniVersion: string): RangeSet[] {
  if (sets.length === 0) throw configError('no IP ranges specified', 'ipam.ranges');
  const out = sets.map((s, i) => {
    try {
      return canonicalizeRangeSet(s.ranges, s.path, s.rangePath);
    } catch (err) {
      if (err instanceof ConfigProblem) throw configError(`invalid range set ${i}: ${err.message}`, err.path, err);
      throw err;
    }
  });
  // Results before 0.3.0 hold one address per family (checklist item 14).
  if (!atLeast030(cniVersion)) {
    const seen = { v4: 0, v6: 0 };
    out.forEach((set, i) => {
      const n = ++seen[isV4Set(set) ? 'v4' : 'v6'];
      if (n > 1) throw configError(`CNI version ${cniVersion} does not support more than 1 address per family`, (sets[i] as RawSet).path);
    });
  }
  for (let i = 0; i < out.length - 1; i++) {
    for (let j = i + 1; j < out.length; j++) {
      if (setsOverlap(out[i] as RangeSet, out[j] as RangeSet)) throw configError(`range set ${i} overlaps with ${j}`, (sets[j] as RawSet).path);
    }
  }
  return out;
}

export function loadHostLocalConf(req: CniRequest): HostLocalConf {
  const raw = parseWithSchema(hostLocalSchema, req.config);
  const ipam = raw.ipam;
  if (ipam === undefined) throw configError("IPAM config missing 'ipam' key", 'ipam');
  const requested = collectRequestedIps({ cniArgs: req.args, argsIps: raw.args?.cni?.ips, runtimeIps: raw.runtimeConfig?.ips });
  const rangeSets = checkRangeSets(rawSets(raw), raw.cniVersion ?? '');
  const dataDir = ipam.dataDir || DEFAULT_DATA_DIR;
  return Object.freeze({
    name: req.name,
    dir: join(dataDir, req.name),
    ...(ipam.resolvConf ? { resolvConf: ipam.resolvConf } : {}),
    routes: (ipam.routes ?? []).map(cleanRoute),
    rangeSets,
    requested,
    failStatusWhenFull: ipam.failStatusWhenFull === true,
  });
}
