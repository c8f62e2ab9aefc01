// host-device + host-local ADD and DEL, ours (host-local in-process) beside the Go reference
// (host-local executed): each moves its own veth end (made once in the node netns, outside the
// timing) into a fresh pod netns per round and back, each with its own host-local store and network.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, sh, verbFigures, type Row, type SectionOptions } from './harness.ts';

function hdConf(label: string, dataDir: string, subnet: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: `bench-hd-${label}`,
    type: 'host-device',
    device: `bhd${label}0`,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet }]] },
  });
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-hd-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-hd-'));
  const subjects = [
    { label: 'go', dir: GO_DIR, conf: hdConf('go', dataDir, '10.253.0.0/16') },
    { label: 'ours', dir: OURS_DIR, conf: hdConf('ours', dataDir, '10.254.0.0/16') },
  ];
  for (const s of subjects) sh('ip', ['-n', node, 'link', 'add', `bhd${s.label}0`, 'type', 'veth', 'peer', 'name', `bhd${s.label}1`]);
  try {
    const samples = await addDelRounds(o, agent, subjects, { pluginCase: (s) => ({ file: join(s.dir, 'host-device'), input: s.conf, cniPath: s.dir }) });
    return [
      { section: 'host-device', name: 'ADD (a veth end, host-local IPv4)', ...verbFigures(samples, 'ADD', o.runs) },
      { section: 'host-device', name: 'DEL', ...verbFigures(samples, 'DEL', o.runs) },
    ];
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
