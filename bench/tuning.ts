// tuning ADD and DEL (a sysctl, MAC, MTU, promiscuous mode: ADD saves the old values, DEL
// restores them), ours beside the Go reference. Each round's pod is a fresh netns with a veth
// "eth0", made and removed outside the timing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addDelFloorRows, addDelRounds, addNetns, Agent, delNetns, GO_DIR, OURS_DIR, sh, timeVersions, type Row, type SectionOptions } from './harness.ts';

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

export async function benchSection(o: SectionOptions): Promise<Row[]> {
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
      between: timeVersions(agent, subjects),
    });
    return addDelFloorRows(samples, { section: 'tuning', add: 'ADD (sysctl, MAC, MTU, promisc)', del: 'DEL (restores)', n: o.runs });
  } finally {
    agent.close();
    delNetns(node);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
