// sbr ADD and DEL (a rule and table 100 for eth0's address: its default route via the
// gateway, its subnet route moved out of main; DEL removes the rule), ours beside the Go
// reference. Each round's pod is a fresh netns with a veth "eth0" holding 10.2.0.2/24, made and
// removed outside the timing.
import { addDelFloorRows, addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, sh, timeVersions, type Row, type SectionOptions } from './harness.ts';
import { join } from 'node:path';

function sbrConf(netns: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'bench-sbr',
    type: 'sbr',
    prevResult: {
      cniVersion: '1.0.0',
      interfaces: [{ name: 'eth0', sandbox: netns }],
      ips: [{ address: '10.2.0.2/24', gateway: '10.2.0.1', interface: 0 }],
    },
  });
}

function podIface(pod: string): void {
  sh('ip', ['-n', pod, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'peer1']);
  sh('ip', ['-n', pod, 'addr', 'add', '10.2.0.2/24', 'dev', 'eth0']);
  sh('ip', ['-n', pod, 'link', 'set', 'peer1', 'up']);
  sh('ip', ['-n', pod, 'link', 'set', 'eth0', 'up']);
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-sbr-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const subjects = [
    { label: 'go', file: join(GO_DIR, 'sbr') },
    { label: 'ours', file: join(OURS_DIR, 'sbr') },
  ];
  try {
    const samples = await addDelRounds(o, agent, subjects, {
      pluginCase: (s, pod, netns) => ({ file: s.file, input: sbrConf(netns), prepare: () => podIface(pod) }),
      between: timeVersions(agent, subjects),
    });
    return addDelFloorRows(samples, {
      section: 'sbr',
      add: 'ADD (rule, table with default and subnet routes)',
      del: 'DEL (rule and table removed)',
      n: o.runs,
    });
  } finally {
    agent.close();
    delNetns(node);
  }
}
