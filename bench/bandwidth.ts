// bandwidth ADD and DEL (ingress and egress shaping: tbf on the host veth, ifb, ingress qdisc,
// redirect filter, tbf on the ifb), ours beside the Go reference. Each pod is a fresh netns whose
// veth peer sits in a throwaway node netns, made and removed outside the timing.
import { join } from 'node:path';
import { addNetns, Agent, alternate, cleanEnv, delNetns, GO_DIR, OURS_DIR, sh, Samples, type Row, type SectionOptions } from './harness.ts';

function bandwidthConf(netns: string, hostVeth: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'bench-bw',
    type: 'bandwidth',
    ingressRate: 10_000_000,
    ingressBurst: 1_000_000,
    egressRate: 10_000_000,
    egressBurst: 1_000_000,
    prevResult: { cniVersion: '1.0.0', interfaces: [{ name: hostVeth }, { name: 'eth0', sandbox: netns }] },
  });
}

export async function benchBandwidth(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-bw-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const subjects = [
    { label: 'go', file: join(GO_DIR, 'bandwidth') },
    { label: 'ours', file: join(OURS_DIR, 'bandwidth') },
  ];
  const samples = new Samples();
  let seq = 0;
  try {
    for (let i = -1; i < o.runs; i++) {
      for (const s of alternate(subjects, i)) {
        const pod = `cnits-bench-bw-pod-${o.tag}-${seq}`;
        const hostVeth = `hv${seq++}`;
        const netns = addNetns(pod);
        try {
          sh('ip', ['-n', node, 'link', 'add', hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod]);
          sh('ip', ['-n', node, 'link', 'set', hostVeth, 'up']);
          const env = (command: string) =>
            cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: pod, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: '/nonexistent' });
          const input = bandwidthConf(netns, hostVeth);
          const add = await agent.must(`${s.label} bandwidth ADD`, { cmd: s.file, env: env('ADD'), input });
          const del = await agent.must(`${s.label} bandwidth DEL`, { cmd: s.file, env: env('DEL'), input });
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
  }
  const m = (k: string) => samples.median(k);
  const cpu = (k: string) => samples.cpu(k);
  const row = (verb: string) => ({ ours: m(`ours ${verb}`), go: m(`go ${verb}`), oursCpu: cpu(`ours ${verb}`), goCpu: cpu(`go ${verb}`), n: o.runs });
  return [
    { section: 'bandwidth', name: 'ADD (ingress + egress)', ...row('ADD') },
    { section: 'bandwidth', name: 'DEL', ...row('DEL') },
  ];
}
