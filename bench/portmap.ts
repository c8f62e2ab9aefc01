// Benchmark: portmap ADD and DEL, ours (dist/bin, iptables and nftables backends) beside
// Debian's Go portmap v1.1.1 (/usr/lib/cni, iptables only), in one run, rounds interleaved with
// alternating order; then the same with 100 containers already mapped; then the time to set
// up a TCP connection through a hostPort with 0 and with 100 containers mapped. Everything
// happens in throwaway netns; clean environment (no NODE_OPTIONS).
//
//   node --import tsx bench/portmap.ts [--runs 20]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { median, timeRun } from './measure.ts';

const runs = Math.max(10, Number(process.argv[process.argv.indexOf('--runs') + 1]) || 20);
const root = resolve(import.meta.dirname, '..');
const tag = `${process.pid}`;
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

interface Subject {
  readonly label: string;
  readonly bin: string;
  readonly backend: 'iptables' | 'nftables';
}

const ours = join(root, 'dist', 'bin', 'portmap');
if (!existsSync(ours)) throw new Error('build first: npm run build (dist/bin/portmap)');
const subjects: Subject[] = [
  { label: 'ours iptables', bin: ours, backend: 'iptables' },
  { label: 'ours nftables', bin: ours, backend: 'nftables' },
];
if (existsSync('/usr/lib/cni/portmap')) subjects.unshift({ label: 'go v1.1.1 iptables', bin: '/usr/lib/cni/portmap', backend: 'iptables' });

function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Container i's address in 10.200.0.0/16 and its own host port. */
const ipOf = (i: number) => `10.200.${Math.floor(i / 250)}.${(i % 250) + 2}`;

function conf(s: Subject, i: number): string {
  return JSON.stringify({
    cniVersion: '0.4.0',
    name: 'benchnet',
    type: 'portmap',
    backend: s.backend,
    runtimeConfig: {
      portMappings: [
        { hostPort: 20000 + i, containerPort: 80, protocol: 'tcp' },
        { hostPort: 20000 + i, containerPort: 81, protocol: 'udp' },
      ],
    },
    prevResult: {
      cniVersion: '0.4.0',
      interfaces: [{ name: 'eth0', sandbox: '/run/netns/x' }],
      ips: [{ version: '4', address: `${ipOf(i)}/16`, interface: 0 }],
    },
  });
}

function time(node: string, s: Subject, command: 'ADD' | 'DEL', i: number): number {
  const env = { ...ENV, CNI_COMMAND: command, CNI_CONTAINERID: `bench-${i}`, CNI_NETNS: '/run/netns/x', CNI_IFNAME: 'eth0', CNI_PATH: '/usr/lib/cni' };
  return timeRun({ what: `${s.label} ${command}`, cmd: 'ip', args: ['netns', 'exec', node, s.bin], env, input: conf(s, i) });
}

type Timings = { add: number[]; del: number[] };

/**
 * One netns per subject and preload (0 or 100 containers mapped first), so no two share
 * rules; every round times each of them once, order alternating, so load changes on the
 * machine hit all alike.
 */
function measureAddDel(preloads: readonly number[]): Map<string, Timings> {
  const cases = subjects.flatMap((s) =>
    preloads.map((preload, k) => ({ s, preload, node: `cnits-bench-pm-${tag}-${subjects.indexOf(s)}-${k}`, key: `${s.label}@${preload}` })),
  );
  const out = new Map(cases.map((c) => [c.key, { add: [] as number[], del: [] as number[] }]));
  try {
    for (const c of cases) {
      sh('ip', ['netns', 'add', c.node]);
      for (let i = 0; i < c.preload; i++) time(c.node, c.s, 'ADD', 1000 + i);
      time(c.node, c.s, 'ADD', 0); // warm-up: shared chains exist, caches warm
      time(c.node, c.s, 'DEL', 0);
    }
    for (let round = 0; round < runs; round++) {
      for (const c of round % 2 === 0 ? cases : [...cases].reverse()) {
        const m = out.get(c.key)!;
        m.add.push(time(c.node, c.s, 'ADD', 1 + round));
        m.del.push(time(c.node, c.s, 'DEL', 1 + round));
      }
    }
  } finally {
    for (const c of cases) spawnSync('ip', ['netns', 'del', c.node]);
  }
  return out;
}

// A client that opens `n` TCP connections one after the other and prints the median connect time (µs).
const CONNECT = `
const net = require('net'); const [host, port, n] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const xs = []; const one = () => new Promise((ok, ko) => { const t0 = process.hrtime.bigint();
  const c = net.connect({ host, port }, () => { xs.push(Number(process.hrtime.bigint() - t0) / 1000); c.destroy(); ok(); }); c.on('error', ko); });
(async () => { for (let i = 0; i < n; i++) await one(); xs.sort((a, b) => a - b); process.stdout.write(String(xs[xs.length >> 1])); })();
`;
const SERVER = `require('net').createServer((c) => c.destroy()).listen(80, () => process.stdout.write('ready'));`;

/** Median connect time from a client netns to the node's address:hostPort, DNATed to a pod, after `preload` other containers. */
function measureConnect(s: Subject, preload: number): number {
  const node = `cnits-bench-pmc-${tag}`;
  const pod = `cnits-bench-pmp-${tag}`;
  const client = `cnits-bench-pmx-${tag}`;
  const server: { kill: () => void } = { kill: () => {} };
  try {
    for (const ns of [node, pod, client]) sh('ip', ['netns', 'add', ns]);
    sh('ip', ['-n', node, 'link', 'add', 'topod', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', pod]);
    sh('ip', ['-n', node, 'link', 'add', 'up0', 'type', 'veth', 'peer', 'name', 'eth0', 'netns', client]);
    sh('ip', ['-n', node, 'addr', 'add', '10.200.0.1/16', 'dev', 'topod']);
    sh('ip', ['-n', node, 'addr', 'add', '192.0.2.1/24', 'dev', 'up0']);
    sh('ip', ['-n', pod, 'addr', 'add', `${ipOf(0)}/16`, 'dev', 'eth0']);
    sh('ip', ['-n', client, 'addr', 'add', '192.0.2.2/24', 'dev', 'eth0']);
    for (const [ns, dev] of [
      [node, 'topod'],
      [node, 'up0'],
      [pod, 'eth0'],
      [client, 'eth0'],
      [node, 'lo'],
      [pod, 'lo'],
    ] as const)
      sh('ip', ['-n', ns, 'link', 'set', dev, 'up']);
    sh('ip', ['-n', pod, 'route', 'add', 'default', 'via', '10.200.0.1']);
    sh('ip', ['netns', 'exec', node, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1']);
    for (let i = 0; i < preload; i++) time(node, s, 'ADD', 1000 + i);
    time(node, s, 'ADD', 0); // the measured pod's rule comes after all the others
    const srv = startServer(pod);
    server.kill = () => srv.kill('SIGKILL');
    const r = spawnSync('ip', ['netns', 'exec', client, process.execPath, '-e', CONNECT, '192.0.2.1', '20000', '400'], { encoding: 'utf8', env: ENV });
    if (r.status !== 0) throw new Error(`connect client failed: ${r.stderr}`);
    return Number(r.stdout);
  } finally {
    server.kill();
    for (const ns of [node, pod, client]) spawnSync('ip', ['netns', 'del', ns]);
  }
}

function startServer(pod: string): ReturnType<typeof spawn> {
  const srv = spawn('ip', ['netns', 'exec', pod, process.execPath, '-e', SERVER], { stdio: ['ignore', 'pipe', 'ignore'], env: ENV });
  // Wait (synchronously, by polling) until it listens.
  const until = Date.now() + 5000;
  while (Date.now() < until) {
    const r = spawnSync('ip', ['netns', 'exec', pod, 'ss', '-ltnH', 'sport = :80'], { encoding: 'utf8' });
    if (r.stdout.trim() !== '') return srv;
    spawnSync('sleep', ['0.05']);
  }
  srv.kill('SIGKILL');
  throw new Error('server did not start');
}

const fmt = (ms: number) => `${ms.toFixed(1).padStart(7)} ms`;
const timings = measureAddDel([0, 100]);
console.log(`portmap (1 tcp + 1 udp mapping, IPv4), median of ${runs} runs each, node ${process.version}`);
console.log(`  ${''.padEnd(22)} ${'ADD'.padStart(10)} ${'DEL'.padStart(10)} ${'ADD@100'.padStart(10)} ${'DEL@100'.padStart(10)} ${'ADD@100/ADD'.padStart(12)}`);
for (const s of subjects) {
  const a = timings.get(`${s.label}@0`)!;
  const b = timings.get(`${s.label}@100`)!;
  console.log(
    `  ${s.label.padEnd(22)} ${fmt(median(a.add))} ${fmt(median(a.del))} ${fmt(median(b.add))} ${fmt(median(b.del))} ${`${(median(b.add) / median(a.add)).toFixed(2)} ×`.padStart(12)}`,
  );
}
const go = subjects.find((s) => s.label.startsWith('go'));
if (go) {
  for (const s of subjects.filter((x) => x !== go)) {
    const r = (k: 'add' | 'del') => (median(timings.get(`${s.label}@0`)![k]) / median(timings.get(`${go.label}@0`)![k])).toFixed(2);
    console.log(`  ${`${s.label} / go`.padEnd(22)} ADD ${r('add')} ×, DEL ${r('del')} ×`);
  }
}
// Three setups per case, 0 and 100 alternating; the median of their medians.
const REPEATS = 3;
console.log(`TCP connection setup through the hostPort (median of ${REPEATS} setups × 400 connects, µs; the measured pod's rule comes last)`);
for (const s of subjects) {
  const by: Record<number, number[]> = { 0: [], 100: [] };
  for (let rep = 0; rep < REPEATS; rep++) for (const preload of rep % 2 === 0 ? [0, 100] : [100, 0]) by[preload]!.push(measureConnect(s, preload));
  console.log(`  ${s.label.padEnd(22)} 0 mapped: ${median(by[0]!).toFixed(0).padStart(5)} µs   100 mapped: ${median(by[100]!).toFixed(0).padStart(5)} µs`);
}
