// macvlan + host-local ADD and DEL (bridge mode, IPv4), ours (host-local in-process) beside the Go
// reference (host-local executed), each with its own host-local store and network name, on one
// master (a veth) in one node netns; a fresh pod netns per round, made and removed outside the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, sh, verbFigures, type Row, type SectionOptions } from './harness.ts';

export const MASTER = 'cnitsbench0';

export function lowerConf(kind: { type: 'macvlan' | 'ipvlan'; mode: string }, label: string, dataDir: string, subnet: string): string {
  const { type, mode } = kind;
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: `bench-${type}-${label}`,
    type,
    master: MASTER,
    mode,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet }]] },
  });
}

/** The node netns with its master up: one end of a veth pair, the other beside it. */
export function addNodeWithMaster(node: string): void {
  addNetns(node);
  sh('ip', ['-n', node, 'link', 'add', MASTER, 'type', 'veth', 'peer', 'name', `${MASTER}p`]);
  for (const dev of [MASTER, `${MASTER}p`]) sh('ip', ['-n', node, 'link', 'set', dev, 'up']);
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-macvlan-node-${o.tag}`;
  addNodeWithMaster(node);
  const agent = new Agent(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-macvlan-'));
  const subjects = [
    { label: 'go', dir: GO_DIR, conf: lowerConf({ type: 'macvlan', mode: 'bridge' }, 'go', dataDir, '10.253.0.0/16') },
    { label: 'ours', dir: OURS_DIR, conf: lowerConf({ type: 'macvlan', mode: 'bridge' }, 'ours', dataDir, '10.254.0.0/16') },
  ];
  try {
    const samples = await addDelRounds(o, agent, subjects, { pluginCase: (s) => ({ file: join(s.dir, 'macvlan'), input: s.conf, cniPath: s.dir }) });
    return [
      { section: 'macvlan', name: 'ADD (host-local, IPv4, bridge mode)', ...verbFigures(samples, 'ADD', o.runs) },
      { section: 'macvlan', name: 'DEL', ...verbFigures(samples, 'DEL', o.runs) },
    ];
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
