// vlan + host-local ADD and DEL, ours (host-local in-process) beside the Go reference (host-local
// executed): a vlan on one master veth in the node netns, in a fresh pod netns per round, each
// with its own VLAN ID, host-local store and network. A kernel without 802.1Q gives one row
// saying so instead of figures.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, sh, verbFigures, type Row, type SectionOptions } from './harness.ts';

function vlanConf(label: string, vlanId: number, dataDir: string, subnet: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: `bench-vlan-${label}`,
    type: 'vlan',
    master: 'bvmaster0',
    vlanId,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet }]] },
  });
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-vlan-node-${o.tag}`;
  addNetns(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-vlan-'));
  try {
    sh('ip', ['-n', node, 'link', 'add', 'bvmaster0', 'type', 'veth', 'peer', 'name', 'bvmaster1']);
    // up: a vlan cannot come up on a master that is down
    sh('ip', ['-n', node, 'link', 'set', 'bvmaster0', 'up']);
    const probe = spawnSync('ip', ['-n', node, 'link', 'add', 'link', 'bvmaster0', 'name', 'bvprobe', 'type', 'vlan', 'id', '9'], { encoding: 'utf8' });
    if (probe.status !== 0)
      return [{ section: 'vlan', name: 'ADD, DEL', ours: Number.NaN, n: 0, note: `not measured: this kernel cannot make a vlan (${probe.stderr.trim()})` }];
    const agent = new Agent(node);
    try {
      const subjects = [
        { label: 'go', dir: GO_DIR, conf: vlanConf('go', 101, dataDir, '10.243.0.0/16') },
        { label: 'ours', dir: OURS_DIR, conf: vlanConf('ours', 102, dataDir, '10.244.0.0/16') },
      ];
      const samples = await addDelRounds(o, agent, subjects, { pluginCase: (s) => ({ file: join(s.dir, 'vlan'), input: s.conf, cniPath: s.dir }) });
      return [
        { section: 'vlan', name: 'ADD (host-local IPv4)', ...verbFigures(samples, 'ADD', o.runs) },
        { section: 'vlan', name: 'DEL', ...verbFigures(samples, 'DEL', o.runs) },
      ];
    } finally {
      agent.close();
    }
  } finally {
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
