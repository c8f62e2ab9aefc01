// Which MAC the container interface gets. Pure.
import { formatMac, isUnicastMac, parseMac } from '../../lib/linux/index.ts';
import type { Problem } from './vlan-plan.ts';

export interface MacSources {
  /** runtimeConfig.mac: the `mac` capability */
  runtimeConfig?: string | undefined;
  /** args.cni.mac */
  argsCni?: string | undefined;
  /** CNI_ARGS MAC= */
  cniArgs?: string | undefined;
}

/**
 * The first non-empty source in the reference's priority (runtimeConfig, then args, then
 * CNI_ARGS), normalised, or the problem with it. Only the chosen one is validated: the
 * reference never looks at the others either.
 */
export function pickMac(s: MacSources): { mac?: string } | Problem {
  const chosen: [string, string | undefined][] = [
    ['runtimeConfig.mac', s.runtimeConfig],
    ['args.cni.mac', s.argsCni],
    ['CNI_ARGS MAC', s.cniArgs],
  ];
  for (const [field, value] of chosen) {
    if (value === undefined || value === '') continue;
    const bytes = parseMac(value);
    if (!bytes) return { field, msg: `invalid MAC address ${JSON.stringify(value)}` };
    if (!isUnicastMac(bytes)) return { field, msg: `MAC address ${JSON.stringify(value)} is not a unicast address` };
    return { mac: formatMac(bytes) };
  }
  return {};
}
