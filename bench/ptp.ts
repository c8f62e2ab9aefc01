// ptp + host-local ADD and DEL as kind's nodes run them (IPv4, no masquerade), ours (host-local
// in-process) beside the Go reference (host-local executed), each with its own host-local store
// and network name in one node netns; a fresh pod netns per round, made and removed outside the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, verbFigures, type Row, type SectionOptions } from './harness.ts';

function ptpConf(label: string, dataDir: string, subnet: string): string {
  return JSON.stringify({
    cniVersion: '0.3.1',
    name: `bench-ptp-${label}`,
    type: 'ptp',
    ipMasq: false,
    ipam: { type: 'host-local', dataDir, routes: [{ dst: '0.0.0.0/0' }], ranges: [[{ subnet }]] },
  });
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-ptp-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-ptp-'));
  const subjects = [
    { label: 'go', dir: GO_DIR, conf: ptpConf('go', dataDir, '10.251.0.0/16') },
    { label: 'ours', dir: OURS_DIR, conf: ptpConf('ours', dataDir, '10.252.0.0/16') },
  ];
  try {
    const samples = await addDelRounds(o, agent, subjects, { pluginCase: (s) => ({ file: join(s.dir, 'ptp'), input: s.conf, cniPath: s.dir }) });
    return [
      { section: 'ptp', name: "ADD (host-local, IPv4, no masquerade: kind's)", ...verbFigures(samples, 'ADD', o.runs) },
      { section: 'ptp', name: 'DEL', ...verbFigures(samples, 'DEL', o.runs) },
    ];
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
