// portmap ADD and DEL (1 tcp + 1 udp mapping, IPv4): ours with the iptables and the nftables
// backend beside Debian's Go portmap v1.1.1 (iptables only), with none and with 100 containers
// already mapped, each case in its own node netns; then (not with --quick) the time to set up a
// TCP connection through a hostPort with 0 and with 100 containers mapped.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  addNetns,
  Agent,
  alternate,
  cleanEnv,
  delNetns,
  GO_DIR,
  mean,
  median,
  OURS_DIR,
  sh,
  type Row,
  type RunResult,
  type SectionOptions,
} from './harness.ts';

interface Subject {
  readonly label: string;
  readonly bin: string;
  readonly backend: 'iptables' | 'nftables';
}

/** Built when the section runs: the reference directory may be set from the command line. */
function subjects(): readonly Subject[] {
  return [
    { label: 'go', bin: join(GO_DIR, 'portmap'), backend: 'iptables' },
    { label: 'ours', bin: join(OURS_DIR, 'portmap'), backend: 'iptables' },
    { label: 'ours-nft', bin: join(OURS_DIR, 'portmap'), backend: 'nftables' },
  ];
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

/** One timed run of container i's ADD or DEL on the agent's node. */
async function time(
  agent: Agent,
  s: Subject,
  { command, i, o, phases }: { command: 'ADD' | 'DEL'; i: number; o: SectionOptions; phases?: string },
): Promise<RunResult> {
  const env = cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: `bench-${i}`, CNI_NETNS: '/run/netns/x', CNI_IFNAME: 'eth0', CNI_PATH: GO_DIR });
  const r = await agent.must(`${s.label} portmap ${command}`, { cmd: s.bin, env, input: conf(s, i) });
  if (phases !== undefined && s.label !== 'go') o.phases.collect(r.stderr, phases);
  return r;
}

interface Case {
  readonly s: Subject;
  readonly preload: number;
  readonly node: string;
  readonly agent: Agent;
  readonly add: RunResult[];
  readonly del: RunResult[];
}

async function measureAddDel(o: SectionOptions): Promise<Case[]> {
  const cases: Case[] = [];
  try {
    for (const [k, s] of subjects().entries()) {
      for (const preload of [0, 100]) {
        const node = `cnits-bench-pm-${o.tag}-${k}-${preload}`;
        addNetns(node);
        const c: Case = { s, preload, node, agent: new Agent(node), add: [], del: [] };
        cases.push(c);
        for (let i = 0; i < preload; i++) await time(c.agent, s, { command: 'ADD', i: 1000 + i, o });
        await time(c.agent, s, { command: 'ADD', i: 0, o }); // warm-up: shared chains exist, caches warm
        await time(c.agent, s, { command: 'DEL', i: 0, o });
      }
    }
    for (let round = 0; round < o.runs; round++) {
      for (const c of alternate(cases, round)) {
        const phases = ` (alone, tcp + udp, ${c.s.backend}${c.preload ? `, ${c.preload} mapped` : ''})`;
        c.add.push(await time(c.agent, c.s, { command: 'ADD', i: 1 + round, o, phases }));
        c.del.push(await time(c.agent, c.s, { command: 'DEL', i: 1 + round, o, phases }));
      }
    }
  } finally {
    for (const c of cases) {
      c.agent.close();
      delNetns(c.node);
    }
  }
  return cases;
}

// A client that opens `n` TCP connections one after the other and prints the median connect time (µs).
const CONNECT = `
const net = require('net'); const [host, port, n] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])];
const xs = []; const one = () => new Promise((ok, ko) => { const t0 = process.hrtime.bigint();
  const c = net.connect({ host, port }, () => { xs.push(Number(process.hrtime.bigint() - t0) / 1000); c.destroy(); ok(); }); c.on('error', ko); });
(async () => { for (let i = 0; i < n; i++) await one(); xs.sort((a, b) => a - b); process.stdout.write(String(xs[xs.length >> 1])); })();
`;
const SERVER = `require('net').createServer((c) => c.destroy()).listen(80, () => process.stdout.write('ready'));`;
const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

/** Median connect time from a client netns to the node's address:hostPort, DNATed to a pod, after `preload` other containers. */
async function measureConnect(s: Subject, preload: number, o: SectionOptions): Promise<number> {
  const [node, pod, client] = ['pmc', 'pmp', 'pmx'].map((x) => `cnits-bench-${x}-${o.tag}`) as [string, string, string];
  const server: { kill: () => void } = { kill: () => {} };
  let agent: Agent | undefined;
  try {
    for (const ns of [node, pod, client]) addNetns(ns);
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
    agent = new Agent(node);
    for (let i = 0; i < preload; i++) await time(agent, s, { command: 'ADD', i: 1000 + i, o });
    await time(agent, s, { command: 'ADD', i: 0, o }); // the measured pod's rule comes after all the others
    const srv = startServer(pod);
    server.kill = () => srv.kill('SIGKILL');
    const r = spawnSync('ip', ['netns', 'exec', client, process.execPath, '-e', CONNECT, '192.0.2.1', '20000', '400'], { encoding: 'utf8', env: ENV });
    if (r.status !== 0) throw new Error(`connect client failed: ${r.stderr}`);
    return Number(r.stdout);
  } finally {
    server.kill();
    agent?.close();
    for (const ns of [node, pod, client]) delNetns(ns);
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

export async function benchSection(o: SectionOptions): Promise<Row[]> {
  const cases = await measureAddDel(o);
  const at = (label: string, preload: number) => cases.find((c) => c.s.label === label && c.preload === preload) as Case;
  const rows: Row[] = [];
  for (const [backend, label] of [
    ['iptables', 'ours'],
    ['nftables (ours) vs iptables (Go)', 'ours-nft'],
  ] as const) {
    for (const preload of [0, 100]) {
      const ours = at(label, preload);
      const go = at('go', preload);
      const where = preload === 0 ? '' : `, ${preload} mapped`;
      for (const verb of ['add', 'del'] as const) {
        const ms = (c: Case) => median(c[verb].map((r) => r.ms));
        const cpu = (c: Case) => mean(c[verb].map((r) => r.cpuMs));
        rows.push({
          section: 'portmap',
          name: `${verb.toUpperCase()} ${backend}${where}`,
          ours: ms(ours),
          go: ms(go),
          oursCpu: cpu(ours),
          goCpu: cpu(go),
          n: o.runs,
        });
      }
    }
  }
  if (o.quick) return rows;
  // Per subject one setup with none and one with 100 mapped (each the median of 400 connects).
  const connect = new Map<string, number>();
  for (const s of subjects()) for (const preload of [0, 100]) connect.set(`${s.label}@${preload}`, await measureConnect(s, preload, o));
  for (const [backend, label] of [
    ['iptables', 'ours'],
    ['nftables (ours) vs iptables (Go)', 'ours-nft'],
  ] as const) {
    for (const preload of [0, 100]) {
      const ours = connect.get(`${label}@${preload}`) ?? Number.NaN;
      rows.push({
        section: 'portmap',
        name: `TCP connect via hostPort, ${backend}, ${preload} mapped`,
        ours,
        go: connect.get(`go@${preload}`) ?? Number.NaN,
        n: 400,
        unit: 'µs',
      });
    }
  }
  return rows;
}
