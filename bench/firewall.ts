// firewall ADD and DEL (one IPv4 pod, ingressPolicy open): ours with the iptables and the
// nftables backend beside Debian's Go firewall v1.1.1 (iptables only; it has no nftables
// backend), each subject in its own node netns where the shared chains already exist (the
// steady state of a node: the first pod made them), a fresh pod address per run. Then the
// same with 100 pods attached, each implementation on a node it filled itself: its ADD reads
// rules of every pod.
import { join } from 'node:path';
import { addNetns, Agent, alternate, cleanEnv, delNetns, floorRows, GO_DIR, OURS_DIR, Samples, timeVersion, type Row, type SectionOptions } from './harness.ts';

interface Subject {
  readonly label: string;
  readonly bin: string;
  readonly backend: 'iptables' | 'nftables';
  /** pods ADDed before the rounds and left attached */
  readonly attached: number;
}

const ATTACHED = 100;

function conf(s: Subject, i: number): string {
  return JSON.stringify({
    cniVersion: '0.4.0',
    name: 'benchnet',
    type: 'firewall',
    backend: s.backend,
    prevResult: {
      cniVersion: '0.4.0',
      interfaces: [{ name: 'cni0' }, { name: 'eth0', sandbox: '/run/netns/x' }],
      ips: [{ version: '4', address: `10.201.${Math.floor(i / 250)}.${(i % 250) + 2}/16`, interface: 1 }],
    },
  });
}

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const subjects: Subject[] = [0, ATTACHED].flatMap((attached) => {
    const at = attached === 0 ? '' : `@${attached}`;
    return [
      { label: `go${at}`, bin: join(GO_DIR, 'firewall'), backend: 'iptables' as const, attached },
      { label: `ours${at}`, bin: join(OURS_DIR, 'firewall'), backend: 'iptables' as const, attached },
      { label: `ours-nft${at}`, bin: join(OURS_DIR, 'firewall'), backend: 'nftables' as const, attached },
    ];
  });
  const pod = `cnits-bench-fw-pod-${o.tag}`;
  const netns = addNetns(pod);
  const nodes = new Map(subjects.map((s) => [s.label, `cnits-bench-fw-${s.label.replace('@', '-')}-${o.tag}`]));
  const agents = new Map<string, Agent>();
  const samples = new Samples();
  let seq = 0;
  try {
    for (const [label, node] of nodes) {
      addNetns(node);
      agents.set(label, new Agent(node));
    }
    // i = -2 makes the shared chains (not timed), i = -1 warms up
    for (let i = -2; i < o.runs; i++) {
      for (const s of alternate(subjects, Math.max(i, 0))) {
        const agent = agents.get(s.label)!;
        const env = (command: string) =>
          cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: `fw${seq}`, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: '/nonexistent' });
        const input = conf(s, seq++);
        if (i === -2) {
          // Each pod its own container id, as a runtime gives it (the nft elements are keyed by it).
          for (let k = 0; k <= s.attached; k++, seq++) await agent.must(`${s.label} firewall ADD`, { cmd: s.bin, env: env('ADD'), input: conf(s, 60000 + k) });
          continue;
        }
        const add = await agent.must(`${s.label} firewall ADD`, { cmd: s.bin, env: env('ADD'), input });
        const del = await agent.must(`${s.label} firewall DEL`, { cmd: s.bin, env: env('DEL'), input });
        if (!s.label.startsWith('go') && i >= 0) {
          o.phases.collect(add.stderr + del.stderr, `${s.backend === 'nftables' ? ' (nft)' : ''}${s.attached === 0 ? '' : `, ${s.attached} pods`}`);
        }
        if (i >= 0) {
          samples.add(`${s.label} ADD`, add);
          samples.add(`${s.label} DEL`, del);
          if (s.attached === 0) samples.add(`${s.label} VERSION`, await timeVersion(agent, s.label, s.bin));
        }
      }
    }
  } finally {
    for (const a of agents.values()) a.close();
    for (const node of nodes.values()) delNetns(node);
    delNetns(pod);
  }
  const m = (k: string) => samples.median(k);
  const cpu = (k: string) => samples.cpu(k);
  const row = (ours: string, verb: string, goLabel = 'go') => ({
    ours: m(`${ours} ${verb}`),
    oursCpu: cpu(`${ours} ${verb}`),
    go: m(`${goLabel} ${verb}`),
    goCpu: cpu(`${goLabel} ${verb}`),
    n: o.runs,
  });
  const at = `@${ATTACHED}`;
  return [
    { section: 'firewall', name: 'ADD (iptables)', ...row('ours', 'ADD') },
    { section: 'firewall', name: 'DEL (iptables)', ...row('ours', 'DEL') },
    { section: 'firewall', name: 'ADD (nftables; Go: iptables)', ...row('ours-nft', 'ADD') },
    { section: 'firewall', name: 'DEL (nftables; Go: iptables)', ...row('ours-nft', 'DEL') },
    { section: 'firewall', name: `ADD, ${ATTACHED} pods attached (iptables)`, ...row(`ours${at}`, 'ADD', `go${at}`) },
    { section: 'firewall', name: `DEL, ${ATTACHED} pods attached (iptables)`, ...row(`ours${at}`, 'DEL', `go${at}`) },
    { section: 'firewall', name: `ADD, ${ATTACHED} pods attached (nftables; Go: iptables)`, ...row(`ours-nft${at}`, 'ADD', `go${at}`) },
    { section: 'firewall', name: `DEL, ${ATTACHED} pods attached (nftables; Go: iptables)`, ...row(`ours-nft${at}`, 'DEL', `go${at}`) },
    ...floorRows(samples, { section: 'firewall', verbs: ['ADD', 'DEL'], n: o.runs, suffix: ' (iptables)' }),
    ...floorRows(samples, { section: 'firewall', verbs: ['ADD', 'DEL'], n: o.runs, ours: 'ours-nft', suffix: ' (nftables; Go: iptables)' }).slice(1),
  ];
}
