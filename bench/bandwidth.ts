// bandwidth ADD and DEL (ingress and egress shaping: tbf on the host veth, ifb, ingress qdisc,
// redirect filter, tbf on the ifb), ours beside the Go reference. Each pod is a fresh netns whose
// veth peer sits in a throwaway node netns, made and removed outside the timing.
import { join } from 'node:path';
import { addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, sh, verbFigures, type Row, type SectionOptions } from './harness.ts';

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

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-bw-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const subjects = [
    { label: 'go', file: join(GO_DIR, 'bandwidth') },
    { label: 'ours', file: join(OURS_DIR, 'bandwidth') },
  ];
  let veth = 0;
  try {
    const samples = await addDelRounds(o, agent, subjects, {
      pluginCase: (s, pod, netns) => {
        const hostVeth = `hv${veth++}`;
        return {
          file: s.file,
          input: bandwidthConf(netns, hostVeth),
          prepare: () => {
            sh('ip', ['-n', node, 'link', 'add', hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod]);
            sh('ip', ['-n', node, 'link', 'set', hostVeth, 'up']);
          },
        };
      },
    });
    return [
      { section: 'bandwidth', name: 'ADD (ingress + egress)', ...verbFigures(samples, 'ADD', o.runs) },
      { section: 'bandwidth', name: 'DEL', ...verbFigures(samples, 'DEL', o.runs) },
    ];
  } finally {
    agent.close();
    delNetns(node);
  }
}
