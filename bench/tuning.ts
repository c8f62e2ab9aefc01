// tuning ADD and DEL (a sysctl, MAC, MTU, promiscuous mode: ADD saves the old values, DEL
// restores them), ours beside the Go reference. Each round's pod is a fresh netns with a veth
// "eth0", made and removed outside the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addNetns, Agent, alternate, cleanEnv, delNetns, GO_DIR, OURS_DIR, sh, Samples, type Row, type SectionOptions } from './harness.ts';

function tuningConf(netns: string, dataDir: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: 'bench-tuning',
    type: 'tuning',
    dataDir,
    mac: '02:00:00:00:00:42',
    mtu: 1400,
    promisc: true,
    sysctl: { 'net.ipv4.conf.IFNAME.arp_filter': '1' },
    prevResult: { cniVersion: '1.0.0', interfaces: [{ name: 'eth0', sandbox: netns }], ips: [{ address: '10.1.0.2/24', interface: 0 }] },
  });
}

export async function benchTuning(o: SectionOptions): Promise<Row[]> {
  const node = `cnits-bench-tun-node-${o.tag}`;
  addNetns(node);
  const agent = new Agent(node);
  const dataDir = mkdtempSync(join(tmpdir(), 'cnits-bench-tun-'));
  const subjects = [
    { label: 'go', file: join(GO_DIR, 'tuning') },
    { label: 'ours', file: join(OURS_DIR, 'tuning') },
  ];
  const samples = new Samples();
  let seq = 0;
  try {
    for (let i = -1; i < o.runs; i++) {
      for (const s of alternate(subjects, i)) {
        const pod = `cnits-bench-tun-pod-${o.tag}-${seq++}`;
        const netns = addNetns(pod);
        try {
          sh('ip', ['-n', pod, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'peer0']);
          const env = (command: string) =>
            cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: pod, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: '/nonexistent' });
          const input = tuningConf(netns, dataDir);
          const add = await agent.must(`${s.label} tuning ADD`, { cmd: s.file, env: env('ADD'), input });
          const del = await agent.must(`${s.label} tuning DEL`, { cmd: s.file, env: env('DEL'), input });
          if (s.label === 'ours' && i >= 0) o.phases.collect(add.stderr + del.stderr, ' (alone)');
          if (i >= 0) {
            samples.add(`${s.label} ADD`, add);
            samples.add(`${s.label} DEL`, del);
          }
        } finally {
          delNetns(pod);
        }
      }
      const bare = await agent.must('node -e 0', { cmd: process.execPath, args: ['-e', '0'], env: cleanEnv() });
      if (i >= 0) samples.add('node', bare);
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
    { section: 'tuning', name: 'ADD (sysctl, MAC, MTU, promisc)', ...row('ADD') },
    { section: 'tuning', name: 'DEL (restores)', ...row('DEL') },
    { section: 'tuning', name: '`node -e 0` (the floor, same rounds)', ours: m('node'), oursCpu: cpu('node'), n: o.runs },
  ];
}
