// tuning ADD and DEL (a sysctl, MAC, MTU, promiscuous mode: ADD saves the old values, DEL
// restores them), ours beside the Go reference. Each round's pod is a fresh netns with a veth
// "eth0", made and removed outside the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDelRounds, addNetns, Agent, cleanEnv, delNetns, GO_DIR, OURS_DIR, sh, verbFigures, type Row, type SectionOptions } from './harness.ts';

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
  try {
    const samples = await addDelRounds(o, agent, subjects, {
      pluginCase: (s, pod, netns) => ({
        file: s.file,
        input: tuningConf(netns, dataDir),
        prepare: () => sh('ip', ['-n', pod, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'peer0']),
      }),
      between: async (samples, timed) => {
        const bare = await agent.must('node -e 0', { cmd: process.execPath, args: ['-e', '0'], env: cleanEnv() });
        if (timed) samples.add('node', bare);
      },
    });
    return [
      { section: 'tuning', name: 'ADD (sysctl, MAC, MTU, promisc)', ...verbFigures(samples, 'ADD', o.runs) },
      { section: 'tuning', name: 'DEL (restores)', ...verbFigures(samples, 'DEL', o.runs) },
      { section: 'tuning', name: '`node -e 0` (the floor, same rounds)', ours: samples.median('node'), oursCpu: samples.cpu('node'), n: o.runs },
    ];
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
