// ADD (reference cmdAdd and createTap, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/tap/tap.go):
// the tap device in the container's netns (MTU, MAC, bridge port, up), then, with an ipam.type,
// the IPAM's addresses on it. Every step registers its undo, so a failing ADD leaves no device
// and no allocation (the reference keeps the tap when IPAM fails).
import { convertResult, UndoStack, type CniRequest, type Interface, type Result } from '../../lib/cni-spec/index.ts';
import { ipamAdd, ipamDel } from '../../lib/ipam/index.ts';
import {
  configureIface,
  createTun,
  deleteLink,
  getLinkByName,
  openContainerNetns,
  parseMac,
  clearExecLabel,
  setExecLabel,
  setLinkMac,
  setLinkMaster,
  setLinkMtu,
  setLinkUp,
  writeSysctl,
  type Netns,
} from '../../lib/linux/index.ts';
import { loadConf, type TapConf } from './conf.ts';
import { planTapFlags } from './tap-plan.ts';

export class TapError extends Error {
  override readonly name = 'TapError';
}

const msg = (err: unknown): string => (err as Error).message;

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req, { forAdd: true });
  const pod = openContainerNetns(req);
  const undo = new UndoStack('tap');
  try {
    const tap = await setupTap(pod, conf, req, undo);
    const result: Result = { cniVersion: req.cniVersion, interfaces: [tap] };
    if (conf.ipamType !== '') Object.assign(result, await addIpam(pod, { conf, req, undo }, result));
    if (conf.dns) result.dns = conf.dns;
    // An L2-only result has no form in 0.1.0/0.2.0: fail here, while the undo can still run.
    convertResult(result, req.cniVersion);
    return result;
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
  }
}

async function setupTap(pod: Netns, conf: TapConf, req: CniRequest, undo: UndoStack): Promise<Interface> {
  if (conf.selinuxContext !== undefined) applySelinuxContext(conf.selinuxContext);
  const name = req.ifname;
  createTun(pod, {
    name,
    flags: planTapFlags(conf),
    ...(conf.owner !== undefined && { owner: conf.owner }),
    ...(conf.group !== undefined && { group: conf.group }),
  });
  // By name, registered before anything else can fail: the device exists from here on.
  undo.push(`tap ${name}`, async () => {
    const made = await getLinkByName(pod, name);
    if (made) await deleteLink(pod, made.index);
  });
  const link = await getLinkByName(pod, name);
  if (!link) throw new TapError(`failed to refetch tap ${JSON.stringify(name)}: Link not found`);
  try {
    if (conf.mtu !== undefined) await setLinkMtu(pod, link.index, conf.mtu);
    if (conf.mac !== undefined) await setLinkMac(pod, link.index, parseMac(conf.mac) ?? Buffer.alloc(0));
  } catch (err) {
    throw new TapError(`failed to create tap: ${msg(err)}`, { cause: err });
  }
  if (conf.bridge !== undefined) {
    const bridge = await getLinkByName(pod, conf.bridge);
    if (!bridge) throw new TapError(`failed to get bridge ${conf.bridge}: Link not found`);
    try {
      await setLinkMaster(pod, link.index, bridge.index);
    } catch (err) {
      throw new TapError(`failed to set tap ${name} as a port of bridge ${conf.bridge}: ${msg(err)}`, { cause: err });
    }
  }
  try {
    await setLinkUp(pod, link.index);
  } catch (err) {
    throw new TapError(`failed to set tap interface up: ${msg(err)}`, { cause: err });
  }
  // A tap's MAC changes only when set: no need to read the link again.
  return { name, mac: conf.mac ?? link.mac, sandbox: req.netns };
}

/**
 * The reference sets the label for its next exec and runs `ip tuntap add`, so the device is made
 * by a process of that context. Where SELinux is off the write fails, and so do both ADDs, alike.
 * Where it takes the label, we would make the device ourselves under the plugin's own context:
 * rather than drop the label the config asks for, ADD fails and says why (docs/divergences.md).
 */
function applySelinuxContext(label: string): void {
  try {
    setExecLabel(label);
  } catch (err) {
    throw new TapError(`failed set socket label: ${msg(err)}`, { cause: err });
  }
  clearExecLabel();
  throw new TapError(
    `failed set socket label: selinuxContext ${JSON.stringify(label)} cannot be applied: cni-ts makes the tap in-process, not by exec'ing ip(8) under that label`,
  );
}

async function addIpam(pod: Netns, { conf, req, undo }: { conf: TapConf; req: CniRequest; undo: UndoStack }, l2: Result): Promise<Result> {
  const ipam = await ipamAdd(conf.ipamType, req);
  undo.push('IPAM allocation', () => ipamDel(conf.ipamType, req));
  if (!ipam.ips || ipam.ips.length === 0) throw new TapError('IPAM plugin returned missing IP config');
  // All addresses apply to the tap, interface 0 of the result.
  const result: Result = { ...l2, ips: ipam.ips.map((ip) => ({ ...ip, interface: 0 })), ...(ipam.routes && { routes: ipam.routes }) };
  try {
    writeSysctl(pod, `net/ipv4/conf/${req.ifname}/arp_notify`, '1');
  } catch {
    // The reference ignores this one's failure too.
  }
  await configureIface(pod, req.ifname, result);
  return result;
}
