// A pod netns with a veth "eth0" to tune, and tuning configs with a hand-made prevResult.
import type { Test } from 'tap';
import { makeNetns, type TestNetns } from './netns.ts';
import { ipJson, nsRun, run } from '../../test-support/sh.ts';

export interface Link {
  address: string;
  mtu: number;
  flags: string[];
  txqlen: number;
  promiscuity: number;
}

export async function podWithEth0(t: Test): Promise<TestNetns & { mac: string }> {
  const ns = await makeNetns(t, 'tun');
  await run('ip', ['-n', ns.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'peer0']);
  await run('ip', ['-n', ns.name, 'link', 'set', 'eth0', 'up']);
  return { ...ns, mac: (await link(ns.name)).address };
}

export async function link(ns: string): Promise<Link> {
  const [l] = await ipJson<Link[]>(ns, ['-d', 'link', 'show', 'eth0']);
  return l as Link;
}

export const sysctl = (ns: string, key: string) => nsRun(ns, 'sysctl', ['-n', key]).then((s) => s.trim());

export function tuningConf(cniVersion: string, dataDir: string, extra: object, pod: { path: string; mac: string }) {
  const prevResult =
    cniVersion === '0.1.0' || cniVersion === '0.2.0'
      ? { cniVersion, ip4: { ip: '10.1.0.2/24' } }
      : {
          cniVersion,
          interfaces: [{ name: 'eth0', mac: pod.mac, sandbox: pod.path }],
          ips: [{ ...(cniVersion.startsWith('0.') && { version: '4' }), address: '10.1.0.2/24', interface: 0 }],
        };
  return { cniVersion, name: 'tunenet', type: 'tuning', dataDir, ...extra, prevResult };
}

export const TUNE = {
  mac: 'C2-B0-57-49-47-F1',
  mtu: 1400,
  promisc: true,
  allmulti: true,
  txQLen: 321,
  sysctl: { 'net.ipv4.conf.IFNAME.arp_filter': '1', 'net.core.somaxconn': '512' },
};
