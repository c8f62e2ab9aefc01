// Bandwidth e2e helpers: a bridge + host-local → bandwidth conflist run in a node netns, the
// tbf state read back with `tc -j -raw`, and iperf3 between the node and a pod. The iperf3
// server runs in the pod netns the test created; it is killed by its own handle in teardown.
import { spawn } from 'node:child_process';
import type { Test } from 'tap';
import { attachment, type Attachment } from './conflist.ts';
import { makeNetns, type TestNetns } from './netns.ts';
import { tempDir } from './plugins.ts';
import { nsExec, run } from '../../test-support/sh.ts';

export const BW_BRIDGE = 'cni-bw0';
export const BW_SUBNET = '10.251.0.0/24';
export const BW_GATEWAY = '10.251.0.1';
export const BW_NETWORK = 'bwnet';

/** bridge + host-local → bandwidth with the `bandwidth` capability; `bw` adds static keys. */
export function bandwidthConflist(dataDir: string, bw: Record<string, unknown> = {}, cniVersion = '1.0.0'): Record<string, unknown> {
  return {
    cniVersion,
    name: BW_NETWORK,
    plugins: [
      { type: 'bridge', bridge: BW_BRIDGE, isGateway: true, ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: BW_SUBNET }]] } },
      { type: 'bandwidth', capabilities: { bandwidth: true }, ...bw },
    ],
  };
}

export interface BwWorld {
  readonly node: TestNetns;
  readonly dataDir: string;
}

export async function makeBwWorld(t: Test): Promise<BwWorld> {
  const node = await makeNetns(t, 'bwnode');
  await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
  return { node, dataDir: tempDir(t, 'cnits-bw-') };
}

export interface BwPod {
  readonly ns: TestNetns;
  readonly att: Attachment;
  readonly id: string;
}

let seq = 0;
export async function makeBwPod(t: Test, w: BwWorld, list: object, capabilityArgs?: Record<string, unknown>): Promise<BwPod> {
  const ns = await makeNetns(t, 'bwpod');
  const id = `bw-${process.pid}-${++seq}`;
  const att = attachment(list, { containerId: id, netns: ns.path, ifname: 'eth0', ...(capabilityArgs && { capabilityArgs }) }, { nodeNetns: w.node.name });
  return { ns, att, id };
}

export interface TbfShown {
  rate: number;
  burst: number;
  burst_raw: string;
  lat?: number;
  limit: number;
}

/** The root tbf of a device in a netns, as `tc -j -raw qdisc show` prints its options. */
export async function tbfOf(ns: string, dev: string): Promise<TbfShown | undefined> {
  const r = await nsExec(ns, 'tc', ['-j', '-raw', 'qdisc', 'show', 'dev', dev]);
  if (r.code !== 0) return undefined;
  const q = (JSON.parse(r.stdout) as { kind: string; root?: boolean; options: TbfShown }[]).find((x) => x.kind === 'tbf' && x.root);
  return q?.options;
}

/** The qdisc kinds of a device (`tc -j qdisc show`), or undefined when it does not exist. */
export async function qdiscKinds(ns: string, dev: string): Promise<string[] | undefined> {
  const r = await nsExec(ns, 'tc', ['-j', 'qdisc', 'show', 'dev', dev]);
  return r.code === 0 ? (JSON.parse(r.stdout) as { kind: string }[]).map((q) => q.kind) : undefined;
}

/** Links of a netns whose name starts with bwp (our and the reference's ifbs). */
export async function ifbsIn(ns: string): Promise<string[]> {
  const links = JSON.parse(await run('ip', ['-n', ns, '-j', 'link', 'show', 'type', 'ifb'])) as { ifname: string }[];
  return links.map((l) => l.ifname).filter((n) => n.startsWith('bwp'));
}

const IPERF_PORT = 5201;

/** Starts `iperf3 -s` in `ns` and resolves once it listens; killed by its pid in teardown. */
export async function startIperfServer(t: Test, ns: string): Promise<void> {
  const child = spawn('ip', ['netns', 'exec', ns, 'iperf3', '-s', '--forceflush', '-p', String(IPERF_PORT)], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`iperf3 -s did not start in 5 s: ${out}`)), 5000);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('Server listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`iperf3 -s exited (${code}): ${out}`));
    });
  });
}

export interface Throughput {
  /** receiver's average over the run, bits/s */
  bps: number;
  /** receiver's per-second intervals, bits/s */
  intervals: number[];
}

interface IperfJson {
  error?: string;
  intervals: { sum: { bits_per_second: number; seconds: number } }[];
  end: { sum_received: { bits_per_second: number } };
  server_output_text?: string;
}

const UNIT: Record<string, number> = { '': 1, K: 1e3, M: 1e6, G: 1e9 };

/** Per-second lines of iperf3's text report ("[  5]   0.00-1.00   sec  1.19 MBytes  9.99 Mbits/sec"). */
function textIntervals(text: string): { seconds: number; bps: number }[] {
  const out: { seconds: number; bps: number }[] = [];
  for (const line of text.split('\n')) {
    const m = /^\[\s*\d+\]\s+([\d.]+)-([\d.]+)\s+sec\s+\S+\s+\w*Bytes\s+([\d.]+)\s+([KMG]?)bits\/sec\s*$/.exec(line);
    if (m) out.push({ seconds: Number(m[2]) - Number(m[1]), bps: Number(m[3]) * (UNIT[m[4] ?? ''] ?? 1) });
  }
  return out;
}

/**
 * TCP from the node to the pod ('into' the pod) or back ('out of' it: iperf3 -R), measured at
 * the receiver: the server's report for 'into', the client's for 'out'. Bounded by -t and a
 * hard timeout.
 */
export async function iperf(node: string, podAddr: string, dir: 'into' | 'out', seconds: number): Promise<Throughput> {
  const args = [
    '-k',
    '3',
    String(seconds + 10),
    'iperf3',
    '-c',
    podAddr,
    '-p',
    String(IPERF_PORT),
    '-t',
    String(seconds),
    '-J',
    '--get-server-output',
    ...(dir === 'out' ? ['-R'] : []),
  ];
  const r = await nsExec(node, 'timeout', args);
  let j: IperfJson;
  try {
    j = JSON.parse(r.stdout) as IperfJson;
  } catch {
    throw new Error(`iperf3 failed (exit ${r.code}): ${r.stdout.slice(0, 500)} ${r.stderr.slice(0, 500)}`);
  }
  if (j.error) throw new Error(`iperf3: ${j.error}`);
  const receiver =
    dir === 'into' ? textIntervals(j.server_output_text ?? '') : j.intervals.map((i) => ({ seconds: i.sum.seconds, bps: i.sum.bits_per_second }));
  if (receiver.length === 0) throw new Error(`iperf3 gave no receiver intervals: ${JSON.stringify(j).slice(0, 300)}`);
  // A trailing partial interval (a few ms) says nothing about a rate.
  return { bps: j.end.sum_received.bits_per_second, intervals: receiver.filter((i) => i.seconds >= 0.5).map((i) => i.bps) };
}

export const mbit = (bps: number): string => `${(bps / 1e6).toFixed(2)} Mbit/s`;
