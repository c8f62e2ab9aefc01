// The host-device plugin's configuration (reference NetConf, handleDeviceID and loadConf,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/host-device/host-device.go):
// which node device to give the container, and whether it is a PCI device bound to a userspace
// (DPDK) driver, which then stays where it is. runtimeConfig.deviceID (a device plugin's
// choice) wins over pciBusID.
import * as z from 'zod/mini';
import { cleanDNS, CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest, type DNS } from '../../lib/cni-spec/index.ts';
import { hasDpdkDriver, isBusName, resolveDeviceId, SYSFS } from './sysfs.ts';

export interface HostDeviceConf {
  readonly device: string;
  readonly hwaddr: string;
  readonly kernelpath: string;
  readonly pciBusID: string;
  /** from runtimeConfig.deviceID when it names an auxiliary device */
  readonly auxDevice: string;
  /** a PCI device bound to a userspace driver: nothing is moved */
  readonly dpdkMode: boolean;
  /** '' for none: host-device moves the device and leaves its addresses alone */
  readonly ipamType: string;
  readonly dns?: DNS;
}

function buildSchema() {
  const strings = z.optional(z.array(z.string()));
  return z.object({
    device: z.optional(z.string()),
    hwaddr: z.optional(z.string()),
    kernelpath: z.optional(z.string()),
    pciBusID: z.optional(z.string()),
    runtimeConfig: z.optional(z.object({ deviceID: z.optional(z.string()) })),
    ipam: z.optional(z.object({ type: z.optional(z.string()) })),
    dns: z.optional(z.object({ nameservers: strings, domain: z.optional(z.string()), search: strings, options: strings })),
  });
}

/** host-device's own fields; the bad-input generator derives its cases from it. */
export const hostDeviceConfSchema = namedSchema('host-device', buildSchema);

export interface LoadOptions {
  /** the sysfs root (tests: a fake tree) */
  sysfs?: string;
  /**
   * DEL: a PCI device whose driver cannot be read (unplugged, unbound) is taken as a kernel
   * device, so DEL still releases its addresses and looks for the link instead of failing.
   */
  forDel?: boolean;
}

export function loadConf(req: CniRequest, o: LoadOptions = {}): HostDeviceConf {
  return timed('config', () => parseConf(req, o));
}

const invalid = (field: string, msg: string): CniError => new CniError(ErrorCode.InvalidNetworkConfig, msg, `${field}: ${msg}`);

function parseConf(req: CniRequest, o: LoadOptions): HostDeviceConf {
  const raw = parseWithSchema(hostDeviceConfSchema, req.config);
  const root = o.sysfs ?? SYSFS;
  let pciBusID = raw.pciBusID ?? '';
  let auxDevice = '';
  const deviceID = raw.runtimeConfig?.deviceID ?? '';
  if (deviceID !== '') {
    let found;
    try {
      found = resolveDeviceId(root, deviceID);
    } catch (err) {
      throw invalid('runtimeConfig.deviceID', (err as Error).message);
    }
    if ('pciAddr' in found) pciBusID = found.pciAddr;
    else [pciBusID, auxDevice] = ['', found.auxDevice];
  }
  const device = raw.device ?? '';
  const hwaddr = raw.hwaddr ?? '';
  const kernelpath = raw.kernelpath ?? '';
  if (device === '' && hwaddr === '' && kernelpath === '' && pciBusID === '' && auxDevice === '') {
    throw invalid('device', 'specify either "device", "hwaddr", "kernelpath" or "pciBusID"');
  }
  if (pciBusID !== '' && !isBusName(pciBusID)) throw invalid('pciBusID', `error with host device: invalid PCI address ${JSON.stringify(pciBusID)}`);
  let dpdkMode = false;
  if (pciBusID !== '') {
    try {
      dpdkMode = hasDpdkDriver(root, pciBusID);
    } catch (err) {
      if (!o.forDel) throw new Error(`error with host device: ${(err as Error).message}`, { cause: err });
    }
  }
  const ipamType = raw.ipam?.type ?? '';
  // Without IPAM the result has no address, which a 0.1.0 or 0.2.0 result cannot express: the
  // reference finds out when printing, after moving the device, and leaves it in the pod.
  if (ipamType === '' && req.command === 'ADD' && (req.cniVersion === '0.1.0' || req.cniVersion === '0.2.0')) {
    throw new CniError(ErrorCode.IncompatibleCNIVersion, 'cannot convert: no valid IP addresses');
  }
  const dns = cleanDNS(raw.dns);
  return Object.freeze({ device, hwaddr, kernelpath, pciBusID, auxDevice, dpdkMode, ipamType, ...(dns && { dns }) });
}
