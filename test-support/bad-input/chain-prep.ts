// What the plugin before a chained one (portmap, bandwidth) leaves, built with iproute2 in the
// batch's own netns: a bridge in the node, a veth whose host side is a port of it and whose
// other side is CNI_IFNAME in the pod with an IPv4 and an IPv6 address, and the 1.0.0 result
// bridge would print for it. A case then reaches the chained plugin's own validation in an
// environment where its valid config succeeds.
import { ipJson, run } from '../sh.ts';

export interface ChainWorld {
  /** the node netns's name */
  readonly node: string;
  /** the pod netns's name */
  readonly pod: string;
  /** the pod's path, as in CNI_NETNS */
  readonly podPath: string;
}

export const CHAIN = {
  bridge: 'cnitsbi1',
  hostVeth: 'vethbi0',
  ifname: 'eth0',
  v4: { addr: '10.87.0.2/24', gw: '10.87.0.1' },
  v6: { addr: 'fd00:87::2/64', gw: 'fd00:87::1' },
} as const;

const macOf = async (ns: string, dev: string) => (await ipJson<{ address: string }[]>(ns, ['link', 'show', 'dev', dev]))[0]?.address ?? '';

/** Builds the world and returns the prevResult a bridge ADD would have printed. */
export async function prepareBridgeLike(w: ChainWorld): Promise<Record<string, unknown>> {
  const n = ['-n', w.node];
  const p = ['-n', w.pod];
  await run('ip', [...n, 'link', 'add', CHAIN.bridge, 'type', 'bridge']);
  await run('ip', [...n, 'link', 'add', CHAIN.hostVeth, 'type', 'veth', 'peer', 'name', CHAIN.ifname, 'netns', w.pod]);
  await run('ip', [...n, 'link', 'set', CHAIN.hostVeth, 'master', CHAIN.bridge]);
  await run('ip', [...n, 'addr', 'add', `${CHAIN.v4.gw}/24`, 'dev', CHAIN.bridge]);
  // nodad: no duplicate detection running (and changing flags) while snapshots are taken
  await run('ip', [...n, 'addr', 'add', `${CHAIN.v6.gw}/64`, 'dev', CHAIN.bridge, 'nodad']);
  await run('ip', [...p, 'addr', 'add', CHAIN.v4.addr, 'dev', CHAIN.ifname]);
  await run('ip', [...p, 'addr', 'add', CHAIN.v6.addr, 'dev', CHAIN.ifname, 'nodad']);
  for (const [ns, dev] of [
    [n, CHAIN.bridge],
    [n, CHAIN.hostVeth],
    [p, 'lo'],
    [p, CHAIN.ifname],
  ] as const) {
    await run('ip', [...ns, 'link', 'set', dev, 'up']);
  }
  await run('ip', [...p, 'route', 'add', 'default', 'via', CHAIN.v4.gw]);
  await run('ip', [...p, '-6', 'route', 'add', 'default', 'via', CHAIN.v6.gw]);
  const [bridgeMac, vethMac, podMac] = await Promise.all([macOf(w.node, CHAIN.bridge), macOf(w.node, CHAIN.hostVeth), macOf(w.pod, CHAIN.ifname)]);
  return {
    cniVersion: '1.0.0',
    interfaces: [
      { name: CHAIN.bridge, mac: bridgeMac },
      { name: CHAIN.hostVeth, mac: vethMac },
      { name: CHAIN.ifname, mac: podMac, sandbox: w.podPath },
    ],
    ips: [
      { interface: 2, address: CHAIN.v4.addr, gateway: CHAIN.v4.gw },
      { interface: 2, address: CHAIN.v6.addr, gateway: CHAIN.v6.gw },
    ],
    routes: [
      { dst: '0.0.0.0/0', gw: CHAIN.v4.gw },
      { dst: '::/0', gw: CHAIN.v6.gw },
    ],
  };
}
