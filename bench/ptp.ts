// ptp + host-local ADD and DEL as kind's nodes run them (IPv4, no masquerade), ours (host-local
// in-process) beside the Go reference (host-local executed), each with its own host-local store
// and network name in one node netns; a fresh pod netns per round, made and removed outside the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addNetns, Agent, alternate, cleanEnv, delNetns, GO_DIR, OURS_DIR, Samples, type Row, type SectionOptions } from './harness.ts';

function ptpConf(label: string, dataDir: string, subnet: string): string {
  return JSON.stringify({
    cniVersion: '0.3.1',
    name: `bench-ptp-${label}`,
    type: 'ptp',
    ipMasq: false,
    ipam: { type: 'host-local', dataDir, routes: [{ dst: '0.0.0.0/0' }], ranges: [[{ subnet }]] },
  });
}

export async function benchPtp(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-ptp-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-ptp-'));
  const subjects = [
    { label: 'go', dir: GO_DIR, conf: ptpConf('go', dataDir, '10.251.0.0/16') },
    { label: 'ours', dir: OURS_DIR, conf: ptpConf('ours', dataDir, '10.252.0.0/16') },
  ];
  const samples = new Samples();
  let seq = 0;
  try {
    for (let i = -1; i < o.runs; i++) {
      for (const s of alternate(subjects, i)) {
        const pod = `cnits-bench-ptp-pod-${o.tag}-${seq++}`;
        const netns = addNetns(pod);
        try {
          const env = (command: string) => cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: pod, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: s.dir });
          const file = join(s.dir, 'ptp');
          const add = await agent.must(`${s.label} ptp ADD`, { cmd: file, env: env('ADD'), input: s.conf });
          const del = await agent.must(`${s.label} ptp DEL`, { cmd: file, env: env('DEL'), input: s.conf });
          if (s.label === 'ours' && i >= 0) o.phases.collect(add.stderr + del.stderr, ' (alone)');
          if (i >= 0) {
            samples.add(`${s.label} ADD`, add);
            samples.add(`${s.label} DEL`, del);
          }
        } finally {
          delNetns(pod);
        }
      }
    }
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const m = (k: string) => samples.median(k);
  const cpu = (k: string) => samples.cpu(k);
  const row = (verb: string) => ({ ours: m(`ours ${verb}`), go: m(`go ${verb}`), oursCpu: cpu(`ours ${verb}`), goCpu: cpu(`go ${verb}`), n: o.runs });
  return [
    { section: 'ptp', name: "ADD (host-local, IPv4, no masquerade: kind's)", ...row('ADD') },
    { section: 'ptp', name: 'DEL', ...row('DEL') },
  ];
}
