// tap ADD and DEL, ours alone: Debian's Go plugins (1.1.1) have no tap, so there is no Go column.
// Two cases: L2 only (the device, its flags, owner and group, up), and with host-local in-process
// (the device plus an address and a route). A fresh pod netns per round, made and removed
// outside the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDelRounds, addNetns, Agent, delNetns, OURS_DIR, verbFigures, type Row, type SectionOptions } from './harness.ts';

const NO_GO = 'no Go tap in Debian 1.1.1';

function tapConf(dataDir: string | undefined): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'bench-tap',
    type: 'tap',
    multiQueue: true,
    owner: 0,
    group: 0,
    ...(dataDir && { ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.253.0.0/16' }]], routes: [{ dst: '10.254.0.0/16' }] } }),
  });
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-tap-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-tap-'));
  try {
    const rows: Row[] = [];
    for (const [name, conf] of [
      ['ADD (L2 only: multi-queue, owner, group)', tapConf(undefined)],
      ['ADD (host-local, IPv4)', tapConf(dataDir)],
    ] as const) {
      const subjects = [{ label: 'ours', dir: OURS_DIR, conf }];
      const samples = await addDelRounds(o, agent, subjects, { pluginCase: (s) => ({ file: join(s.dir, 'tap'), input: s.conf, cniPath: s.dir }) });
      const { go: _go, goCpu: _goCpu, ...add } = verbFigures(samples, 'ADD', o.runs);
      const { go: _g, goCpu: _gc, ...del } = verbFigures(samples, 'DEL', o.runs);
      rows.push({ section: 'tap', name, ...add, note: NO_GO }, { section: 'tap', name: `DEL after ${name.slice(4)}`, ...del, note: NO_GO });
    }
    return rows;
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
