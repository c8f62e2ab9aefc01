// What host-device reads from sysfs (reference handleDeviceID, hasDpdkDriver, getLink and
// linkFromPath, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/host-device/host-device.go):
// whether a runtime's deviceID is a PCI or an auxiliary device, whether a PCI device is bound
// to a userspace (DPDK) driver, and which network device a sysfs directory holds. Every function
// takes the sysfs root, so the decisions are tested on a fake tree in a temp dir.
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, normalize } from 'node:path';

export const SYSFS = '/sys';

/** Drivers that hand a NIC to userspace (DPDK): the device then has no kernel netdev to move. */
export const USERSPACE_DRIVERS: readonly string[] = ['vfio-pci', 'uio_pci_generic', 'igb_uio'];

export class SysfsError extends Error {
  override readonly name = 'SysfsError';
}

const pciDir = (root: string, addr: string): string => join(root, 'bus', 'pci', 'devices', addr);
const auxDir = (root: string, dev: string): string => join(root, 'bus', 'auxiliary', 'devices', dev);

/** A bus address is one path component: the reference joins it into a path as it is. */
export function isBusName(s: string): boolean {
  return s !== '' && s !== '.' && s !== '..' && !s.includes('/') && !s.includes('\0');
}

const exists = (p: string): boolean => {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
};

/** runtimeConfig.deviceID: a PCI address, else an auxiliary device, else an error. */
export function resolveDeviceId(root: string, id: string): { pciAddr: string } | { auxDevice: string } {
  if (isBusName(id) && exists(pciDir(root, id))) return { pciAddr: id };
  if (isBusName(id) && exists(auxDir(root, id))) return { auxDevice: id };
  throw new SysfsError(`runtime config DeviceID ${id} not found or unsupported`);
}

/** True when the PCI device's driver is one of USERSPACE_DRIVERS; throws when it has none. */
export function hasDpdkDriver(root: string, pciAddr: string): boolean {
  const link = join(pciDir(root, pciAddr), 'driver');
  let driver: string;
  try {
    driver = realpathSync(link);
    statSync(driver);
  } catch (err) {
    throw new SysfsError(`lstat ${link}: ${goText(err)}`, { cause: err });
  }
  return USERSPACE_DRIVERS.includes(basename(driver));
}

/** Where a device's netdev is listed: `<dir>/net/<name>`. */
export type NetDirSource = { kernelpath: string } | { pciAddr: string } | { auxDevice: string };

/** The directory whose first entry names the device's netdev. */
export function netDirOf(root: string, s: NetDirSource): string {
  if ('kernelpath' in s) {
    const p = s.kernelpath;
    if (!isAbsolute(p) || !p.startsWith('/sys/devices/') || normalize(p) !== p.replace(/\/+$/, '')) {
      throw new SysfsError(`kernel device path ${JSON.stringify(p)} must be absolute and begin with /sys/devices/`);
    }
    // The config names a path of the real sysfs; a test's root stands in for /sys.
    return join(root, p.slice('/sys/'.length), 'net');
  }
  if ('auxDevice' in s) return join(auxDir(root, s.auxDevice), 'net');
  const net = join(pciDir(root, s.pciAddr), 'net');
  try {
    lstatSync(net);
    return net;
  } catch {
    // A virtio NIC keeps its netdev one level down, under virtioN/.
    const dir = pciDir(root, s.pciAddr);
    let virtio: string | undefined;
    try {
      virtio = readdirSync(dir)
        .filter((e) => e.startsWith('virtio'))
        .sort()
        .find((e) => exists(join(dir, e, 'net')));
    } catch {
      // no such device: reported below
    }
    if (virtio === undefined) throw new SysfsError(`no net directory under pci device ${s.pciAddr}`);
    return join(dir, virtio, 'net');
  }
}

/** The first network device listed in `dir` (directory order sorted, as Go's os.ReadDir). */
export function firstNetDevice(dir: string): string {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch (err) {
    throw new SysfsError(`failed to read directory ${dir}: ${JSON.stringify(goText(err))}`, { cause: err });
  }
  const first = entries[0];
  if (first === undefined) throw new SysfsError(`failed to find network device in path ${dir}`);
  return first;
}

function goText(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'ENOTDIR') return 'not a directory';
  if (code === 'EACCES') return 'permission denied';
  return (err as Error).message;
}
