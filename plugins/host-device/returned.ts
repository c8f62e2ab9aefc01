// Which node link is the device a DEL is for, once the pod's netns is gone and the kernel has
// returned it under another name (its alias still names it). Pure.
import { formatMac, parseMac } from '../../lib/linux/index.ts';
import type { HostDeviceConf } from './conf.ts';

export interface LinkView {
  name: string;
  alias?: string;
  mac: string;
}

/**
 * By the name the config gives (the alias the move left), by MAC, or by the name sysfs now
 * lists for the configured device (`sysfsName`). Undefined: nothing identifies it (DPDK, or a
 * sysfs device that is gone).
 */
export function returnedMatch(conf: HostDeviceConf, sysfsName?: string): ((l: LinkView) => boolean) | undefined {
  if (conf.dpdkMode) return undefined;
  if (conf.device !== '') return (l) => l.alias === conf.device;
  if (conf.hwaddr !== '') {
    const mac = parseMac(conf.hwaddr);
    if (!mac) return undefined;
    const want = formatMac(mac);
    return (l) => l.mac === want;
  }
  if (sysfsName !== undefined) return (l) => l.name === sysfsName;
  return undefined;
}
