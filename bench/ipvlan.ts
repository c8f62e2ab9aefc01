// ipvlan + host-local ADD and DEL (l2 mode, IPv4), as bench/macvlan.ts times macvlan. A kernel
// without ipvlan (this development machine's) gets no rows: the section says so on stderr and
// the kernel lab's kernel is the one to time it on.
import { mkdtempSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDelRounds, Agent, delNetns, GO_DIR, OURS_DIR, verbFigures, type Row, type SectionOptions } from './harness.ts';
import { addNodeWithMaster, lowerConf, MASTER } from './macvlan.ts';

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-ipvlan-node-${o.tag}`;
  addNodeWithMaster(node);
  const probe = spawnSync('ip', ['-n', node, 'link', 'add', 'link', MASTER, 'cnitsbenchiv', 'type', 'ipvlan'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    delNetns(node);
    process.stderr.write(` no rows: this kernel cannot make an ipvlan link (${probe.stderr.trim()})`);
    return [];
  }
  spawnSync('ip', ['-n', node, 'link', 'del', 'cnitsbenchiv']);
  const agent = new Agent(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-ipvlan-'));
  const subjects = [
    { label: 'go', dir: GO_DIR, conf: lowerConf({ type: 'ipvlan', mode: 'l2' }, 'go', dataDir, '10.253.0.0/16') },
    { label: 'ours', dir: OURS_DIR, conf: lowerConf({ type: 'ipvlan', mode: 'l2' }, 'ours', dataDir, '10.254.0.0/16') },
  ];
  try {
    const samples = await addDelRounds(o, agent, subjects, { pluginCase: (s) => ({ file: join(s.dir, 'ipvlan'), input: s.conf, cniPath: s.dir }) });
    return [
      { section: 'ipvlan', name: 'ADD (host-local, IPv4, l2 mode)', ...verbFigures(samples, 'ADD', o.runs) },
      { section: 'ipvlan', name: 'DEL', ...verbFigures(samples, 'DEL', o.runs) },
    ];
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
