// The node device a config names (reference getLink): by name, by MAC, or through sysfs (a
// kernel path, a PCI address, an auxiliary device), in that order of precedence.
import { formatMac, getLinkByName, listLinks, parseMac, type LinkInfo, type Netns } from '../../lib/linux/index.ts';
import type { HostDeviceConf } from './conf.ts';
import { firstNetDevice, netDirOf, SYSFS } from './sysfs.ts';

export class DeviceNotFoundError extends Error {
  override readonly name = 'DeviceNotFoundError';
}

export async function findHostDevice(host: Netns, conf: HostDeviceConf, sysfs = SYSFS): Promise<LinkInfo> {
  const name = deviceName(conf, sysfs);
  if (name !== undefined) {
    const link = await getLinkByName(host, name);
    if (!link) throw new DeviceNotFoundError('Link not found');
    return link;
  }
  // hwaddr: the only way left (deviceName answers for every other source)
  const mac = parseMac(conf.hwaddr);
  if (!mac) throw new DeviceNotFoundError(`failed to parse MAC address ${JSON.stringify(conf.hwaddr)}: address ${conf.hwaddr}: invalid MAC address`);
  const want = formatMac(mac);
  const link = (await listLinks(host)).find((l) => l.mac === want);
  if (!link) throw new DeviceNotFoundError('failed to find physical interface');
  return link;
}

/** The device's name when the config gives it or sysfs tells it; undefined for hwaddr. */
export function deviceName(conf: HostDeviceConf, sysfs = SYSFS): string | undefined {
  if (conf.device !== '') return conf.device;
  if (conf.hwaddr !== '') return undefined;
  if (conf.kernelpath !== '') return firstNetDevice(netDirOf(sysfs, { kernelpath: conf.kernelpath }));
  if (conf.pciBusID !== '') return firstNetDevice(netDirOf(sysfs, { pciAddr: conf.pciBusID }));
  if (conf.auxDevice !== '') return firstNetDevice(netDirOf(sysfs, { auxDevice: conf.auxDevice }));
  throw new DeviceNotFoundError('failed to find physical interface');
}
