// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/host-device/host-device.go):
// the device back to the node under its node name (its alias), and the allocation released.
// Every step runs and what is gone is done. Unlike the reference, the addresses are released
// also when the pod's netns is gone (the reference fails to open it and returns before IPAM DEL,
// so a node reboot leaks every allocation: plugins#1196), a second DEL succeeds, and a physical
// device the kernel returned to the node (under another name, on the netns's end) gets its name back.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamDel } from '../../lib/ipam/index.ts';
import { Netns, openContainerNetnsIfExists } from '../../lib/linux/index.ts';
import { loadConf, type HostDeviceConf } from './conf.ts';
import { deviceName } from './find-device.ts';
import { moveLinkOut, restoreReturned } from './move.ts';
import { returnedMatch } from './returned.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req, { forDel: true });
  const failures = new Failures();
  if (!conf.dpdkMode) await failures.attempt(() => returnDevice(req, conf));
  if (conf.ipamType !== '') await failures.attempt(() => ipamDel(conf.ipamType, req));
  failures.throwIfAny();
}

async function returnDevice(req: CniRequest, conf: HostDeviceConf): Promise<void> {
  const host = Netns.host();
  let pod: Netns | undefined;
  try {
    pod = openContainerNetnsIfExists(req.netns);
    if (pod && (await moveLinkOut(pod, host, req.ifname, conf.device))) return;
    const match = returnedMatch(conf, sysfsName(conf));
    if (match) await restoreReturned(host, match);
  } finally {
    pod?.close();
    host.close();
  }
}

/** The name sysfs lists for a kernelpath/PCI/auxiliary device now; undefined when it cannot tell. */
function sysfsName(conf: HostDeviceConf): string | undefined {
  if (conf.device !== '' || conf.hwaddr !== '') return undefined;
  try {
    return deviceName(conf);
  } catch {
    return undefined;
  }
}
