// A node for host-device tests: the "device" is one end of a veth pair made in the node netns
// (the other end, `wire`, stays in the node with the gateway address, so traffic over the moved
// device is real traffic), and host-local hands out addresses in a temp dataDir.
import { attachment, type Attachment } from './conflist.ts';
import type { TestNetns } from './netns.ts';
import { run } from '../../test-support/sh.ts';

export const HD_NETWORK = 'hdnet';
export const HD_V4 = { subnet: '10.77.0.0/24', gateway: '10.77.0.1', first: '10.77.0.10' } as const;
/** the node-side names: the device given to pods, and its peer that stays */
export const HD_DEVICE = 'hd0';
export const HD_WIRE = 'hdwire';

/** The device and its peer in the node, up, the peer holding the gateway address. Returns the device's MAC. */
export async function makeDevice(node: TestNetns, name = HD_DEVICE, wire = HD_WIRE): Promise<string> {
  await run('ip', ['-n', node.name, 'link', 'add', name, 'type', 'veth', 'peer', 'name', wire]);
  await run('ip', ['-n', node.name, 'addr', 'add', `${HD_V4.gateway}/24`, 'dev', wire, 'nodad']);
  for (const dev of [name, wire]) await run('ip', ['-n', node.name, 'link', 'set', dev, 'up']);
  const out = await run('ip', ['-n', node.name, '-j', 'link', 'show', 'dev', name]);
  return (JSON.parse(out) as { address: string }[])[0]?.address ?? '';
}

export function hdPlugin(dataDir: string | undefined, extra: object = {}): Record<string, unknown> {
  return {
    type: 'host-device',
    device: HD_DEVICE,
    ...(dataDir !== undefined && {
      ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: HD_V4.subnet, rangeStart: HD_V4.first }]], routes: [{ dst: '10.99.0.0/16' }] },
    }),
    ...extra,
  };
}

export function hdConflist(cniVersion: string, plugin: Record<string, unknown>): object {
  return { cniVersion, name: HD_NETWORK, plugins: [plugin] };
}

export function hdAttachment(list: object, o: { node: TestNetns; pod: TestNetns; id: string; cniPath?: readonly string[] }): Attachment {
  return attachment(list, { containerId: o.id, netns: o.pod.path, ifname: 'eth0' }, { nodeNetns: o.node.name, ...(o.cniPath && { cniPath: o.cniPath }) });
}
