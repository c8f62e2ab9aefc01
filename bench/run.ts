// Benchmark: loopback ADD through our single-file executable, beside Debian's Go
// reference (/usr/lib/cni/loopback) and beside a bare `node -e 0`, in one run,
// interleaved so machine noise hits all three alike. Clean environment (no
// NODE_OPTIONS, no NODE_EXTRA_CA_CERTS: each adds to every node start).
//
//   npm run bench [-- --runs 50]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { median, timeRun } from './measure.ts';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 40;
const root = resolve(import.meta.dirname, '..');
const ours = join(root, 'dist', 'bin', 'loopback');
const go = '/usr/lib/cni/loopback';
const ns = `cnits-bench-${process.pid}`;
const conf = JSON.stringify({ cniVersion: '1.0.0', name: 'bench', type: 'loopback' });
const env = {
  PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
  CNI_COMMAND: 'ADD',
  CNI_CONTAINERID: 'bench',
  CNI_NETNS: `/run/netns/${ns}`,
  CNI_IFNAME: 'eth0',
  CNI_PATH: '/nonexistent',
};

const timeOnce = (cmd: string, args: string[]): number => timeRun({ what: cmd, cmd, args, env, input: conf });

const subjects: [string, string, string[]][] = [
  ['node -e 0', process.execPath, ['-e', '0']],
  ['ours: dist/bin/loopback ADD', ours, []],
  ...(existsSync(go) ? [['go: /usr/lib/cni/loopback ADD', go, []] as [string, string, string[]]] : []),
];

if (!existsSync(ours)) throw new Error('build first: npm run build');
spawnSync('ip', ['netns', 'add', ns]);
try {
  for (const [, cmd, args] of subjects) timeOnce(cmd, args); // warm up: page cache, our code cache
  const times = subjects.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) subjects.forEach(([, cmd, args], j) => times[j]?.push(timeOnce(cmd, args)));
  const med = times.map(median);
  const base = med[0] as number;
  console.log(`loopback ADD, median of ${runs} runs each (ms), node ${process.version}`);
  subjects.forEach(([name], j) => {
    const m = med[j] as number;
    console.log(`  ${name.padEnd(34)} ${m.toFixed(1).padStart(7)} ms   ${(m / base).toFixed(2)} × node -e 0`);
  });
  if (med[2] !== undefined) console.log(`  ours / go: ${((med[1] as number) / med[2]).toFixed(2)} ×`);
} finally {
  spawnSync('ip', ['netns', 'del', ns]);
}
