// A node for vlan tests: its master link `vmaster` is a veth whose peer `vwire` sits in a
// "switch" netns, where a vlan link on VLAN_ID holds the gateway address. A pod's vlan reaches
// the gateway only if its frames leave the master tagged with that ID; tcpdump on `vwire` shows the tag.
import { spawn } from 'node:child_process';
import type { Test } from 'tap';
import { attachment, type Attachment } from './conflist.ts';
import { makeNetns, type TestNetns } from './netns.ts';
import { run } from '../../test-support/sh.ts';

export const VLAN_NETWORK = 'vlannet';
export const VLAN_ID = 100;
export const VLAN_V4 = { subnet: '10.78.0.0/24', gateway: '10.78.0.1', first: '10.78.0.10' } as const;
export const MASTER = 'vmaster';
export const WIRE = 'vwire';

/** The switch netns, with `vwire` (the master's peer) and the gateway on its VLAN_ID link. */
export async function makeSwitch(t: Test, node: TestNetns, master = MASTER): Promise<TestNetns> {
  const sw = await makeNetns(t, 'switch');
  await run('ip', ['-n', node.name, 'link', 'add', master, 'type', 'veth', 'peer', 'name', WIRE, 'netns', sw.name]);
  await run('ip', ['-n', node.name, 'link', 'set', master, 'up']);
  await run('ip', ['-n', sw.name, 'link', 'set', WIRE, 'up']);
  const vdev = `${WIRE}.${VLAN_ID}`;
  await run('ip', ['-n', sw.name, 'link', 'add', 'link', WIRE, 'name', vdev, 'type', 'vlan', 'id', String(VLAN_ID)]);
  await run('ip', ['-n', sw.name, 'addr', 'add', `${VLAN_V4.gateway}/24`, 'dev', vdev, 'nodad']);
  await run('ip', ['-n', sw.name, 'link', 'set', vdev, 'up']);
  return sw;
}

export function vlanPlugin(dataDir: string, extra: object = {}): Record<string, unknown> {
  return {
    type: 'vlan',
    master: MASTER,
    vlanId: VLAN_ID,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: VLAN_V4.subnet, rangeStart: VLAN_V4.first }]], routes: [{ dst: '10.99.0.0/16' }] },
    ...extra,
  };
}

export function vlanConflist(cniVersion: string, plugin: Record<string, unknown>): object {
  return { cniVersion, name: VLAN_NETWORK, plugins: [plugin] };
}

export function vlanAttachment(list: object, o: { node: TestNetns; pod: TestNetns; id: string; cniPath?: readonly string[] }): Attachment {
  return attachment(list, { containerId: o.id, netns: o.pod.path, ifname: 'eth0' }, { nodeNetns: o.node.name, ...(o.cniPath && { cniPath: o.cniPath }) });
}

/**
 * Runs `during` while tcpdump (link-level headers, no name lookups) listens on `dev` in `ns`;
 * returns the lines it printed. tcpdump is our own child, stopped by its handle.
 */
export async function capture(ns: string, dev: string, during: () => Promise<unknown>): Promise<string[]> {
  const child = spawn('ip', ['netns', 'exec', ns, 'tcpdump', '-i', dev, '-e', '-n', '-l', '-Q', 'in'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
      if (err.includes('listening on')) resolve();
    });
    child.on('close', (code) => reject(new Error(`tcpdump exited (${code}): ${err}`)));
    setTimeout(() => reject(new Error(`tcpdump did not start in 30 s: ${err}`)), 30_000).unref();
  });
  try {
    await during();
    // let the last frames reach the capture before it stops
    await new Promise((r) => setTimeout(r, 300));
  } finally {
    child.kill('SIGINT');
    await exited;
  }
  return out.split('\n').filter((l) => l.trim() !== '');
}
