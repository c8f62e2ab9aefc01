// Benchmark: start-up of the two packaged forms side by side, with hyperfine (Debian package
// `hyperfine`), in one run and a clean environment:
//   VERSION of loopback and bridge (start-up alone: it must not grow with a plugin's features),
//   loopback ADD, and bridge + host-local ADD (host-local run in-process, as installed),
// each as the single-file bundle (dist/bin) and as the Bun binary (dist/bun/bin), beside
// `node -e 0` (in the VERSION and the loopback ADD group: a ratio compares rows measured
// together). hyperfine runs one command after another, so on a machine whose load drifts each
// group is run in several rounds, the order reversed each round, and the medians are over all
// rounds' runs. Everything runs inside a throwaway netns that plays the node (hyperfine itself
// runs there, so no `ip netns exec` is timed); bridge ADD gets a fresh pod (its DEL is
// hyperfine's --prepare step, not timed). Natives and code caches in the default state
// directory, as installed. Prints medians, the load average before and after, and the targets
// of issue #11 with their outcome.
//
//   npm run bench:startup [-- --runs 40]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 40;
const ROUNDS = 4;
const root = resolve(import.meta.dirname, '..');
const forms = [
  { label: 'bundle', dir: join(root, 'dist', 'bin'), build: 'npm run build' },
  { label: 'Bun', dir: join(root, 'dist', 'bun', 'bin'), build: 'npm run build:bun' },
];
for (const f of forms) {
  for (const p of ['loopback', 'bridge', 'host-local']) if (!existsSync(join(f.dir, p))) throw new Error(`build first: ${f.build} (no ${f.dir}/${p})`);
}
if (spawnSync('hyperfine', ['--version']).status !== 0) throw new Error('hyperfine is missing: apt-get install hyperfine');

const tag = `${process.pid}`;
const node = `cnits-startup-node-${tag}`;
const pod = `cnits-startup-pod-${tag}`;
const work = mkdtempSync(join(tmpdir(), 'cnits-startup-'));

function sh(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr.toString()}`);
}

// A shell word; every path here is ours (no quote in them), checked rather than escaped.
function word(s: string): string {
  if (!/^[\w./=:-]+$/.test(s)) throw new Error(`unexpected character in ${s}`);
  return s;
}

interface Row {
  readonly label: string;
  /** a shell command (hyperfine subtracts the shell's own start-up) */
  readonly cmd: string;
  readonly prepare?: string;
}

interface Result {
  readonly label: string;
  /** wall time, ms */
  readonly median: number;
  /** CPU time (user + sys), ms: hyperfine's mean of each round, their median */
  readonly cpu: number;
}

interface Round {
  readonly command: string;
  readonly times: number[];
  readonly user: number;
  readonly system: number;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

/** ROUNDS hyperfine runs over the rows (order reversed every other round), in the node netns, clean environment. */
function hyperfine(rows: readonly Row[], env: Record<string, string>): Result[] {
  const out = join(work, 'hyperfine.json');
  const all = new Map<string, Round[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const args = ['netns', 'exec', node, 'env', '-i', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), 'hyperfine', '--warmup', '2'];
    args.push('--runs', String(Math.ceil(runs / ROUNDS)), '--export-json', out, '--style', 'none');
    for (const r of round % 2 === 0 ? rows : [...rows].reverse()) {
      if (r.prepare !== undefined) args.push('--prepare', r.prepare);
      args.push('--command-name', r.label, r.cmd);
    }
    const res = spawnSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    if (res.status !== 0) throw new Error(`hyperfine failed: ${res.stderr.toString()}`);
    for (const r of (JSON.parse(readFileSync(out, 'utf8')) as { results: Round[] }).results) all.set(r.command, [...(all.get(r.command) ?? []), r]);
  }
  return rows.map((row) => {
    const rounds = all.get(row.label) ?? [];
    return {
      label: row.label,
      median: median(rounds.flatMap((r) => r.times)) * 1000,
      cpu: median(rounds.map((r) => r.user + r.system)) * 1000,
    };
  });
}

const loopbackConf = join(work, 'loopback.json');
const bridgeConf = join(work, 'bridge.json');
writeFileSync(loopbackConf, JSON.stringify({ cniVersion: '1.0.0', name: 'startup-lo', type: 'loopback' }));
writeFileSync(
  bridgeConf,
  JSON.stringify({
    cniVersion: '1.0.0',
    name: 'startup-br',
    type: 'bridge',
    bridge: 'cnits-st0',
    isGateway: true,
    ipam: { type: 'host-local', dataDir: join(work, 'ipam'), ranges: [[{ subnet: '10.252.0.0/16' }]] },
  }),
);

const baseEnv = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
const podEnv = { ...baseEnv, CNI_CONTAINERID: 'startup', CNI_NETNS: `/run/netns/${pod}`, CNI_IFNAME: 'eth0' };
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
const loadBefore = load();
const results = new Map<string, Result>();
sh('ip', ['netns', 'add', node]);
sh('ip', ['netns', 'add', pod]);
try {
  sh('ip', ['-n', node, 'link', 'set', 'lo', 'up']);
  const version: Row[] = [{ label: 'node -e 0', cmd: `${word(process.execPath)} -e 0` }];
  for (const f of forms) for (const p of ['loopback', 'bridge']) version.push({ label: `${f.label} ${p} VERSION`, cmd: word(join(f.dir, p)) });
  for (const r of hyperfine(version, { ...baseEnv, CNI_COMMAND: 'VERSION', CNI_PATH: '/nonexistent' })) results.set(r.label, r);

  const lo: Row[] = [{ label: 'node -e 0 (ADD group)', cmd: `${word(process.execPath)} -e 0` }];
  for (const f of forms) lo.push({ label: `${f.label} loopback ADD`, cmd: `${word(join(f.dir, 'loopback'))} < ${word(loopbackConf)}` });
  for (const r of hyperfine(lo, { ...podEnv, CNI_COMMAND: 'ADD', CNI_PATH: '/nonexistent' })) results.set(r.label, r);

  // CNI_PATH names the form's own directory, so bridge finds our host-local there and runs it
  // in-process, as with an install. DEL (untimed) before each ADD leaves a fresh pod.
  const br = forms.map((f): Row => {
    const bridge = word(join(f.dir, 'bridge'));
    const env = `CNI_PATH=${word(f.dir)}`;
    return {
      label: `${f.label} bridge+host-local ADD`,
      cmd: `CNI_COMMAND=ADD ${env} ${bridge} < ${word(bridgeConf)}`,
      prepare: `CNI_COMMAND=DEL ${env} ${bridge} < ${word(bridgeConf)}`,
    };
  });
  for (const r of hyperfine(br, podEnv)) results.set(r.label, r);
} finally {
  spawnSync('ip', ['netns', 'del', pod]);
  spawnSync('ip', ['netns', 'del', node]);
  rmSync(work, { recursive: true, force: true });
}

const get = (label: string): number => {
  const r = results.get(label);
  if (r === undefined) throw new Error(`no result for ${label}`);
  return r.median;
};
const ms = (x: number) => `${x.toFixed(1).padStart(6)} ms`;
console.log(`start-up, median of ${runs} runs in ${ROUNDS} rounds (hyperfine), node ${process.version}; load average before ${loadBefore}, after ${load()}`);
console.log(`  ${''.padEnd(30)} ${'bundle'.padStart(9)} ${'Bun'.padStart(9)}   ${'(user+sys, bundle / Bun)'}`);
const cpu = (label: string) => results.get(label)?.cpu.toFixed(1) ?? '-';
for (const what of ['loopback VERSION', 'bridge VERSION', 'loopback ADD', 'bridge+host-local ADD']) {
  const [b, s] = forms.map((f) => `${f.label} ${what}`) as [string, string];
  console.log(`  ${what.padEnd(30)} ${ms(get(b))} ${ms(get(s))}   (${cpu(b)} / ${cpu(s)})`);
}
for (const label of ['node -e 0', 'node -e 0 (ADD group)']) console.log(`  ${label.padEnd(30)} ${ms(get(label))}             (${cpu(label)})`);
const nodeE0 = get('node -e 0 (ADD group)');

const check = (ok: boolean, text: string) => console.log(`  ${ok ? '✓' : '✗'} ${text}`);
console.log('targets:');
const bunLo = get('Bun loopback ADD');
check(bunLo <= nodeE0, `loopback ADD as the Bun binary under node -e 0: ${(bunLo / nodeE0).toFixed(2)} ×`);
const gain = 1 - get('Bun bridge+host-local ADD') / get('bundle bridge+host-local ADD');
check(gain >= 0.15, `bridge + host-local ADD as the Bun binary ≥ 15 % faster than the bundle: ${(gain * 100).toFixed(0)} % faster`);
for (const f of forms) {
  const d = get(`${f.label} bridge VERSION`) - get(`${f.label} loopback VERSION`);
  check(d <= 5, `${f.label}: bridge VERSION within 5 ms of loopback VERSION: ${d >= 0 ? '+' : ''}${d.toFixed(1)} ms`);
}
