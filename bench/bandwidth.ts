// Benchmark: bandwidth ADD and DEL (ingress and egress shaping: tbf on the host veth, ifb,
// ingress qdisc, redirect filter, tbf on the ifb), ours (dist/bin) beside Debian's Go reference
// (/usr/lib/cni) and beside our loopback ADD, the floor of any Node plugin process, in one run,
// interleaved (the order alternates each round). Each pod is a fresh netns whose veth peer
// sits in a throwaway node netns; set up and torn down outside the timing. Clean environment.
//
//   node --import tsx bench/bandwidth.ts [--runs 30]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { median, timeRun } from './measure.ts';

const runs = Math.max(20, Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30);
const root = resolve(import.meta.dirname, '..');
const tag = `${process.pid}`;
const node = `cnits-bwbench-node-${tag}`;
const NETWORK = 'bench-bw';

interface Subject {
  readonly label: string;
  readonly file: string;
  readonly add: number[];
  readonly del: number[];
}

function sh(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr.toString()}`);
}

const env = (command: string, pod: string) => ({
  PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
  CNI_COMMAND: command,
  CNI_CONTAINERID: pod,
  CNI_NETNS: `/run/netns/${pod}`,
  CNI_IFNAME: 'eth0',
  CNI_PATH: '/nonexistent',
});

function bandwidthConf(pod: string, hostVeth: string): string {
  return JSON.stringify({
    cniVersion: '1.0.0',
    name: NETWORK,
    type: 'bandwidth',
    ingressRate: 10_000_000,
    ingressBurst: 1_000_000,
    egressRate: 10_000_000,
    egressBurst: 1_000_000,
    prevResult: { cniVersion: '1.0.0', interfaces: [{ name: hostVeth }, { name: 'eth0', sandbox: `/run/netns/${pod}` }] },
  });
}

/** A pod netns with eth0, its veth peer `hv<n>` up in the node. */
function makePod(name: string, hostVeth: string): void {
  sh('ip', ['netns', 'add', name]);
  sh('ip', ['-n', node, 'link', 'add', hostVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name]);
  sh('ip', ['-n', node, 'link', 'set', hostVeth, 'up']);
}

function cycle(s: Subject, round: number | 'warm'): void {
  const pod = `cnits-bwbench-${tag}-${s.label}-${round}`;
  const hostVeth = `hv${s.label}${round === 'warm' ? 'w' : round}`.slice(0, 15);
  makePod(pod, hostVeth);
  try {
    const conf = bandwidthConf(pod, hostVeth);
    const wrap = ['netns', 'exec', node, s.file];
    const add = timeRun({ what: `${s.label} ADD`, cmd: 'ip', args: wrap, env: env('ADD', pod), input: conf });
    const del = timeRun({ what: `${s.label} DEL`, cmd: 'ip', args: wrap, env: env('DEL', pod), input: conf });
    if (round !== 'warm') {
      s.add.push(add);
      s.del.push(del);
    }
  } finally {
    spawnSync('ip', ['netns', 'del', pod]);
    spawnSync('ip', ['-n', node, 'link', 'del', hostVeth]);
  }
}

const loopback = join(root, 'dist', 'bin', 'loopback');
const loopbackAdd: number[] = [];
function loopbackOnce(round: number | 'warm'): void {
  const pod = `cnits-bwbench-${tag}-lo-${round}`;
  sh('ip', ['netns', 'add', pod]);
  try {
    const ms = timeRun({
      what: 'loopback ADD',
      cmd: 'ip',
      args: ['netns', 'exec', node, loopback],
      env: env('ADD', pod),
      input: JSON.stringify({ cniVersion: '1.0.0', name: 'lo', type: 'loopback' }),
    });
    if (round !== 'warm') loopbackAdd.push(ms);
  } finally {
    spawnSync('ip', ['netns', 'del', pod]);
  }
}

const ours = join(root, 'dist', 'bin', 'bandwidth');
if (!existsSync(ours) || !existsSync(loopback)) throw new Error('build first: npm run build (dist/bin/bandwidth and dist/bin/loopback)');
const subjects: Subject[] = [{ label: 'ours', file: ours, add: [], del: [] }];
if (existsSync('/usr/lib/cni/bandwidth')) subjects.unshift({ label: 'go', file: '/usr/lib/cni/bandwidth', add: [], del: [] });

sh('ip', ['netns', 'add', node]);
let done = 0;
try {
  for (const s of subjects) cycle(s, 'warm');
  loopbackOnce('warm');
  for (; done < runs; done++) {
    const order = done % 2 === 0 ? subjects : [...subjects].reverse();
    for (const s of order) cycle(s, done);
    loopbackOnce(done);
  }
} finally {
  spawnSync('ip', ['netns', 'del', node]);
}

const fmt = (ms: number) => `${ms.toFixed(1).padStart(7)} ms`;
const lo = median(loopbackAdd);
console.log(`bandwidth (ingress + egress: tbf, ifb, redirect), median of ${done} runs each, node ${process.version}`);
console.log(`  ${''.padEnd(34)} ${'ADD'.padStart(10)} ${'DEL'.padStart(10)}`);
for (const s of subjects)
  console.log(`  ${`${s.label}: ${s.file.startsWith(root) ? 'dist/bin/bandwidth' : s.file}`.padEnd(34)} ${fmt(median(s.add))} ${fmt(median(s.del))}`);
console.log(`  ${'ours: dist/bin/loopback ADD'.padEnd(34)} ${fmt(lo)}`);
const o = subjects.find((s) => s.label === 'ours');
if (o) console.log(`  ${'ours − loopback ADD (target ≤ 10)'.padEnd(34)} ${fmt(median(o.add) - lo)} ${fmt(median(o.del) - lo)}`);
