// loopback ADD and DEL, ours beside the Go reference, and a bare `node -e 0`: the floor of any
// Node process here, so what is left is our bundle's start-up and the work.
import { join } from 'node:path';
import { addNetns, Agent, alternate, cleanEnv, delNetns, GO_DIR, OURS_DIR, Samples, type Row, type SectionOptions } from './harness.ts';

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-lo-node-${o.tag}`;
  const pod = `cnits-bench-lo-pod-${o.tag}`;
  addNetns(node);
  const netns = addNetns(pod);
  const agent = new Agent(node);
  const conf = JSON.stringify({ cniVersion: '1.0.0', name: 'bench', type: 'loopback' });
  const env = (command: string) => cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: 'bench', CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: '/nonexistent' });
  const subjects = [
    { label: 'go', file: join(GO_DIR, 'loopback') },
    { label: 'ours', file: join(OURS_DIR, 'loopback') },
  ];
  const samples = new Samples();
  try {
    for (let i = -1; i < o.runs; i++) {
      for (const s of alternate(subjects, i)) {
        for (const verb of ['ADD', 'DEL']) {
          const r = await agent.must(`${s.label} loopback ${verb}`, { cmd: s.file, env: env(verb), input: conf });
          if (s.label === 'ours' && i >= 0) o.phases.collect(r.stderr, ' (alone)');
          if (i >= 0) samples.add(`${s.label} ${verb}`, r);
        }
      }
      const bare = await agent.must('node -e 0', { cmd: process.execPath, args: ['-e', '0'], env: cleanEnv() });
      if (i >= 0) samples.add('node', bare);
    }
  } finally {
    agent.close();
    delNetns(pod);
    delNetns(node);
  }
  const m = (k: string) => samples.median(k);
  const cpu = (k: string) => samples.cpu(k);
  const row = (verb: string) => ({ ours: m(`ours ${verb}`), go: m(`go ${verb}`), oursCpu: cpu(`ours ${verb}`), goCpu: cpu(`go ${verb}`), n: o.runs });
  return [
    { section: 'loopback', name: 'ADD', ...row('ADD') },
    { section: 'loopback', name: 'DEL', ...row('DEL') },
    { section: 'loopback', name: '`node -e 0` (no plugin: the floor of a Node process)', ours: m('node'), oursCpu: cpu('node'), n: o.runs },
  ];
}
