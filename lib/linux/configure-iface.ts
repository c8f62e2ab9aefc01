// Addresses, link state and routes of a container interface from a result: the reference's
// ipam.ConfigureIface, shared by plugins that give a container its interface.
import { errorText } from '../cni-spec/errors.ts';
import type { Result } from '../cni-spec/result.ts';
import { addAddress } from './addr.ts';
import { settleIpv6Addresses } from './addr-settle.ts';
import { planIfaceConfig, type PlannedRoute } from './iface-plan.ts';
import { getLinkByName, setLinkUp } from './link.ts';
import type { Netns } from './netns.ts';
import { addRoute } from './route.ts';
import { readSysctl, writeSysctl } from './sysctl.ts';

export class ConfigureIfaceError extends Error {
  override readonly name = 'ConfigureIfaceError';
}

const q = (s: string): string => JSON.stringify(s);

/**
 * IPv6 may be off in a fresh netns; the kernel then refuses IPv6 addresses. keep_addr_on_down
 * keeps them over a down/up of the link (reference v1.7.0). Slash keys: names may contain dots.
 */
function enableIpv6(ns: Netns, ifname: string): void {
  for (const iface of ['lo', ifname]) {
    const key = `net/ipv6/conf/${iface}/disable_ipv6`;
    let value: string;
    try {
      value = readSysctl(ns, key);
    } catch (err) {
      process.stderr.write(`failed to read sysctl ${q(key)}: ${errorText(err)}\n`);
      continue;
    }
    if (value === '0') continue;
    try {
      writeSysctl(ns, key, '0');
    } catch (err) {
      throw new ConfigureIfaceError(`failed to enable IPv6 for interface ${q(iface)} (${key}=${value}): ${errorText(err)}`, { cause: err });
    }
  }
  const keep = `net/ipv6/conf/${ifname}/keep_addr_on_down`;
  try {
    writeSysctl(ns, keep, '1');
  } catch (err) {
    throw new ConfigureIfaceError(`failed to set sysctl ${keep}=1 for interface ${q(ifname)}: ${errorText(err)}`, { cause: err });
  }
}

function describeRoute(r: PlannedRoute, ifname: string): string {
  return `${r.dst} via ${r.gw ?? '<nil>'} dev ${ifname}`;
}

/** Run with the container's Netns; the interface must exist there. */
export async function configureIface(ns: Netns, ifname: string, result: Result): Promise<void> {
  let plan;
  try {
    plan = planIfaceConfig(result, ifname);
  } catch (err) {
    throw new ConfigureIfaceError(errorText(err), { cause: err });
  }
  const link = await getLinkByName(ns, ifname);
  if (!link) throw new ConfigureIfaceError(`failed to lookup ${q(ifname)}: Link not found`);
  if (plan.enableIpv6) enableIpv6(ns, ifname);
  for (const a of plan.addresses) {
    try {
      await addAddress(ns, link.index, a.cidr);
    } catch (err) {
      throw new ConfigureIfaceError(`failed to add IP addr ${a.cidr} to ${q(ifname)}: ${errorText(err)}`, { cause: err });
    }
  }
  try {
    await setLinkUp(ns, link.index);
  } catch (err) {
    throw new ConfigureIfaceError(`failed to set ${q(ifname)} UP: ${errorText(err)}`, { cause: err });
  }
  if (plan.settleIpv6) await settleIpv6Addresses(ns, link.index, ifname);
  for (const r of plan.routes) {
    try {
      await addRoute(ns, { ...r, index: link.index }, { append: true });
    } catch (err) {
      throw new ConfigureIfaceError(`failed to add route '${describeRoute(r, ifname)}': ${errorText(err)}`, { cause: err });
    }
  }
}
