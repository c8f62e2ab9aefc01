// vrf ADD and DEL, ours beside the Go reference (Debian's 1.1.1, which moves no routes: its ADD
// does less than ours and v1.9.1's). Each round's pod is a fresh netns with a veth "eth0"
// carrying an address and a route, made and removed outside the timing; ADD makes the VRF
// and enslaves eth0, DEL releases it and removes the VRF. A kernel without vrf links
// (CONFIG_NET_VRF) cannot run it: the rows then say so.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, sh, verbFigures, type Row, type SectionOptions } from './harness.ts';

function vrfConf(netns: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'bench-vrf',
    type: 'vrf',
    vrfname: 'red',
    prevResult: { cniVersion: '1.0.0', interfaces: [{ name: 'eth0', sandbox: netns }], ips: [{ address: '10.1.0.2/24', gateway: '10.1.0.1', interface: 0 }] },
  });
}

/** Whether this kernel makes vrf links, tried in the bench's own node netns. */
function kernelHasVrf(node: string): boolean {
  const made = spawnSync('ip', ['-n', node, 'link', 'add', 'cnitsbenchvrf', 'type', 'vrf', 'table', '100']);
  if (made.status !== 0) return false;
  spawnSync('ip', ['-n', node, 'link', 'del', 'cnitsbenchvrf']);
  return true;
}

function preparePod(pod: string): void {
  sh('ip', ['-n', pod, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'peer0']);
  sh('ip', ['-n', pod, 'addr', 'add', '10.1.0.2/24', 'dev', 'eth0']);
  sh('ip', ['-n', pod, 'link', 'set', 'eth0', 'up']);
  sh('ip', ['-n', pod, 'route', 'add', '10.2.0.0/16', 'via', '10.1.0.1', 'dev', 'eth0']);
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-vrf-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const add = 'ADD (new VRF, one route moved)';
  const del = 'DEL (last member: VRF removed)';
  try {
    if (!kernelHasVrf(node)) {
      const note = 'not run: this kernel has no vrf links (CONFIG_NET_VRF)';
      return [
        { section: 'vrf', name: add, ours: Number.NaN, n: 0, note },
        { section: 'vrf', name: del, ours: Number.NaN, n: 0, note },
      ];
    }
    const subjects = [
      { label: 'go', file: join(GO_DIR, 'vrf') },
      { label: 'ours', file: join(OURS_DIR, 'vrf') },
    ];
    const samples = await addDelRounds(o, agent, subjects, {
      pluginCase: (s, pod, netns) => ({ file: s.file, input: vrfConf(netns), prepare: () => preparePod(pod) }),
    });
    return [
      { section: 'vrf', name: add, ...verbFigures(samples, 'ADD', o.runs), note: 'Go 1.1.1 moves no routes' },
      { section: 'vrf', name: del, ...verbFigures(samples, 'DEL', o.runs) },
    ];
  } finally {
    agent.close();
    delNetns(node);
  }
}
