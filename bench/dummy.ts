// dummy + host-local ADD and DEL, ours alone: Debian's Go plugins (1.1.1) have no dummy, so there
// is no Go column. A kernel without dummy links (CONFIG_DUMMY) cannot run it: the rows then say so.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { addDelRounds, addNetns, Agent, delNetns, OURS_DIR, verbFigures, type Row, type SectionOptions } from './harness.ts';

const NO_GO = 'no Go dummy in Debian 1.1.1';

function dummyConf(dataDir: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'bench-dummy',
    type: 'dummy',
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.253.0.0/16' }]], routes: [{ dst: '10.254.0.0/16' }] },
  });
}

/** Whether this kernel makes dummy links, tried in the bench's own node netns. */
function kernelHasDummy(node: string): boolean {
  const made = spawnSync('ip', ['-n', node, 'link', 'add', 'cnitsbenchdummy', 'type', 'dummy']);
  if (made.status !== 0) return false;
  spawnSync('ip', ['-n', node, 'link', 'del', 'cnitsbenchdummy']);
  return true;
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-dummy-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-dummy-'));
  const name = 'ADD (host-local, IPv4)';
  try {
    if (!kernelHasDummy(node)) {
      const note = 'not run: this kernel has no dummy links (CONFIG_DUMMY)';
      return [
        { section: 'dummy', name, ours: Number.NaN, n: 0, note },
        { section: 'dummy', name: 'DEL', ours: Number.NaN, n: 0, note },
      ];
    }
    const subjects = [{ label: 'ours', dir: OURS_DIR, conf: dummyConf(dataDir) }];
    const samples = await addDelRounds(o, agent, subjects, { pluginCase: (s) => ({ file: join(s.dir, 'dummy'), input: s.conf, cniPath: s.dir }) });
    const { go: _go, goCpu: _goCpu, ...add } = verbFigures(samples, 'ADD', o.runs);
    const { go: _g, goCpu: _gc, ...del } = verbFigures(samples, 'DEL', o.runs);
    return [
      { section: 'dummy', name, ...add, note: NO_GO },
      { section: 'dummy', name: 'DEL', ...del, note: NO_GO },
    ];
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
