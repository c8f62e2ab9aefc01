// The dummy and tap plugins' e2e helpers: one plugin run in a throwaway pod netns with a
// host-local range of its own, and what is then left in that pod (links, tun attributes, routes).
import type { Test } from 'tap';
import { makeNetns, type TestNetns } from './netns.ts';
import { execPlugin, tempDir, type PluginRun } from './plugins.ts';
import { ipJson, nsRun } from '../../test-support/sh.ts';

export type Verb = 'ADD' | 'DEL' | 'CHECK' | 'STATUS' | 'GC';

export interface PodRun {
  pod: TestNetns;
  dataDir: string;
  /** runs the plugin with conf (plus prevResult, when given) on ifname "eth0" of the pod */
  call(command: Verb, o?: { prevResult?: unknown; args?: string; netns?: string; config?: object }): Promise<PluginRun>;
}

export const SUBNET = '10.77.0.0/24';

export function hostLocal(dataDir: string, extra: object = {}) {
  return { type: 'host-local', dataDir, ranges: [[{ subnet: SUBNET }]], routes: [{ dst: '10.78.0.0/16' }], ...extra };
}

export async function podRun(t: Test, plugin: 'dummy' | 'tap', conf: (dataDir: string) => object, id = `${plugin}-e2e`): Promise<PodRun> {
  const pod = await makeNetns(t, plugin);
  const dataDir = tempDir(t);
  const base = conf(dataDir);
  return {
    pod,
    dataDir,
    call: (command, o = {}) =>
      execPlugin(
        plugin,
        { command, containerId: id, netns: o.netns ?? pod.path, ifname: 'eth0', ...(o.args !== undefined && { args: o.args }) },
        { ...base, ...o.config, ...(o.prevResult !== undefined && { prevResult: o.prevResult }) },
      ),
  };
}

export interface IpLink {
  ifname: string;
  address: string;
  mtu: number;
  flags: string[];
  master?: string;
  linkinfo?: { info_kind?: string; info_data?: Record<string, unknown> };
  addr_info?: { local: string; prefixlen: number; family: string }[];
}

export async function podLink(pod: string, dev = 'eth0'): Promise<IpLink | undefined> {
  const all = await ipJson<IpLink[]>(pod, ['-d', 'addr', 'show']);
  return all.find((l) => l.ifname === dev);
}

/** Every link of the pod but lo. */
export async function podLinkNames(pod: string): Promise<string[]> {
  return (await ipJson<IpLink[]>(pod, ['link', 'show'])).map((l) => l.ifname).filter((n) => n !== 'lo');
}

/** The tun driver's own view, as its sysfs files show it: flags in hex, owner and group (-1: unset). */
export async function tunAttrs(pod: string, dev = 'eth0'): Promise<{ flags: number; owner: number; group: number }> {
  const read = async (f: string) => (await nsRun(pod, 'cat', [`/sys/class/net/${dev}/${f}`])).trim();
  return { flags: Number(await read('tun_flags')), owner: Number(await read('owner')), group: Number(await read('group')) };
}
