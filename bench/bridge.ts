// bridge + host-local ADD and DEL (isGateway, ipMasq, IPv4), ours (host-local in-process) beside
// the Go reference (host-local executed), each in its own node netns with its own bridge and
// host-local store; a fresh pod netns per round, made and removed outside the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addNetns, Agent, alternate, cleanEnv, delNetns, GO_DIR, mean, median, OURS_DIR, type Row, type SectionOptions } from './harness.ts';

interface Subject {
  readonly label: 'go' | 'ours';
  readonly dir: string;
  readonly node: string;
  readonly agent: Agent;
  readonly dataDir: string;
  readonly conf: string;
  readonly add: number[];
  readonly del: number[];
  readonly addCpu: number[];
  readonly delCpu: number[];
}

function subject(label: Subject['label'], dir: string, tag: string): Subject {
  const node = `cnits-bench-br-${tag}-${label}`;
  addNetns(node);
  const dataDir = mkdtempSync(join(tmpdir(), `cnits-bench-br-${label}-`));
  const conf = JSON.stringify({
    cniVersion: '1.0.0',
    name: `bench-br-${label}`,
    type: 'bridge',
    bridge: 'cni0',
    isGateway: true,
    ipMasq: true,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.250.0.0/16' }]] },
  });
  return { label, dir, node, agent: new Agent(node), dataDir, conf, add: [], del: [], addCpu: [], delCpu: [] };
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const subjects: Subject[] = [];
  let seq = 0;
  try {
    subjects.push(subject('go', GO_DIR, o.tag), subject('ours', OURS_DIR, o.tag));
    for (let i = -1; i < o.runs; i++) {
      for (const s of alternate(subjects, i)) {
        const pod = `cnits-bench-br-pod-${o.tag}-${seq++}`;
        const netns = addNetns(pod);
        try {
          const env = (command: string) => cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: pod, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: s.dir });
          const run = { cmd: join(s.dir, 'bridge'), input: s.conf };
          const add = await s.agent.must(`${s.label} bridge ADD`, { ...run, env: env('ADD') });
          const del = await s.agent.must(`${s.label} bridge DEL`, { ...run, env: env('DEL') });
          if (s.label === 'ours' && i >= 0) o.phases.collect(add.stderr + del.stderr, ' (alone)');
          if (i >= 0) {
            s.add.push(add.ms);
            s.del.push(del.ms);
            s.addCpu.push(add.cpuMs);
            s.delCpu.push(del.cpuMs);
          }
        } finally {
          delNetns(pod);
        }
      }
    }
  } finally {
    for (const s of subjects) {
      s.agent.close();
      delNetns(s.node);
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  }
  const [go, ours] = subjects as [Subject, Subject];
  return [
    { section: 'bridge + host-local', name: 'ADD', ours: median(ours.add), go: median(go.add), oursCpu: mean(ours.addCpu), goCpu: mean(go.addCpu), n: o.runs },
    { section: 'bridge + host-local', name: 'DEL', ours: median(ours.del), go: median(go.del), oursCpu: mean(ours.delCpu), goCpu: mean(go.delCpu), n: o.runs },
  ];
}
