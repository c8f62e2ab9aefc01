// Benchmark: bridge + host-local ADD and DEL, ours (dist/bin) beside Debian's Go reference
// (/usr/lib/cni), in one run, interleaved (the order alternates each round) so machine noise
// hits both alike. Everything happens in a throwaway netns that plays the node, each
// implementation on its own bridge and host-local store; clean environment (no NODE_OPTIONS).
//
//   node --import tsx bench/bridge.ts [--runs 30]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { median, timeRun } from './measure.ts';

const runs = Math.max(20, Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30);
const budgetMs = 100_000; // stop adding rounds past this (still at least 20), to stay under 2 minutes
const root = resolve(import.meta.dirname, '..');
const tag = `${process.pid}`;
const node = `cnits-bench-node-${tag}`;

interface Subject {
  readonly label: string;
  readonly dir: string;
  readonly conf: string;
  readonly add: number[];
  readonly del: number[];
}

function subject(label: string, dir: string, bridge: string, subnet: string): Subject {
  const dataDir = mkdtempSync(join(tmpdir(), `cnits-bench-${label}-`));
  const conf = JSON.stringify({
    cniVersion: '1.0.0',
    name: `bench-${label}`,
    type: 'bridge',
    bridge,
    isGateway: true,
    ipMasq: true,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet }]] },
  });
  return { label, dir, conf, add: [], del: [] };
}

function sh(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr.toString()}`);
}

/** One plugin run, timed from spawn to exit; throws unless it succeeded. */
function timeOnce(s: Subject, command: 'ADD' | 'DEL', pod: string): number {
  const env = {
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    CNI_COMMAND: command,
    CNI_CONTAINERID: pod,
    CNI_NETNS: `/run/netns/${pod}`,
    CNI_IFNAME: 'eth0',
    CNI_PATH: s.dir,
  };
  return timeRun({ what: `${s.label} ${command}`, cmd: 'ip', args: ['netns', 'exec', node, join(s.dir, 'bridge')], env, input: s.conf });
}

/** ADD then DEL of a fresh pod netns; the netns itself is made and removed outside the timing. */
function cycle(s: Subject, round: number | 'warm'): void {
  const pod = `cnits-bench-pod-${tag}-${s.label}-${round}`;
  sh('ip', ['netns', 'add', pod]);
  try {
    const add = timeOnce(s, 'ADD', pod);
    const del = timeOnce(s, 'DEL', pod);
    if (round !== 'warm') {
      s.add.push(add);
      s.del.push(del);
    }
  } finally {
    spawnSync('ip', ['netns', 'del', pod]);
  }
}

const oursDir = join(root, 'dist', 'bin');
if (!existsSync(join(oursDir, 'bridge')) || !existsSync(join(oursDir, 'host-local'))) {
  throw new Error('build first: npm run build (dist/bin/bridge and dist/bin/host-local)');
}
const subjects = [subject('ours', oursDir, 'cni-ours', '10.250.0.0/16')];
if (existsSync('/usr/lib/cni/bridge')) subjects.unshift(subject('go', '/usr/lib/cni', 'cni-go', '10.251.0.0/16'));

sh('ip', ['netns', 'add', node]);
const started = Date.now();
let done = 0;
try {
  sh('ip', ['-n', node, 'link', 'set', 'lo', 'up']);
  for (const s of subjects) cycle(s, 'warm'); // bridges created, page cache and our code cache warm
  for (; done < runs && (done < 20 || Date.now() - started < budgetMs); done++) {
    const order = done % 2 === 0 ? subjects : [...subjects].reverse();
    for (const s of order) cycle(s, done);
  }
} finally {
  spawnSync('ip', ['netns', 'del', node]);
  for (const s of subjects) rmSync((JSON.parse(s.conf) as { ipam: { dataDir: string } }).ipam.dataDir, { recursive: true, force: true });
}

const fmt = (ms: number) => `${ms.toFixed(1).padStart(7)} ms`;
console.log(`bridge + host-local (isGateway, ipMasq, IPv4), median of ${done} runs each, node ${process.version}`);
console.log(`  ${''.padEnd(26)} ${'ADD'.padStart(10)} ${'DEL'.padStart(10)}`);
for (const s of subjects)
  console.log(`  ${`${s.label}: ${s.dir.startsWith(root) ? relative(root, s.dir) : s.dir}`.padEnd(26)} ${fmt(median(s.add))} ${fmt(median(s.del))}`);
const [go, ours] = subjects.length === 2 ? subjects : [undefined, subjects[0]];
if (go && ours) {
  const ratio = (a: number[], b: number[]) => `${(median(a) / median(b)).toFixed(2)} ×`.padStart(10);
  console.log(`  ${'ours / go'.padEnd(26)} ${ratio(ours.add, go.add)} ${ratio(ours.del, go.del)}`);
}
