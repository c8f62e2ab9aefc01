// The bench's timer inside a network namespace. harness.ts starts one per "node" netns with
// `ip netns exec <node> node --import tsx bench/agent.ts`, once: timing `ip netns exec` around
// every run would add its ~5 ms (a mount namespace and a /sys remount) to every sample, more
// than a Go plugin's whole run. Each stdin line is a JSON run request; each stdout line answers
// one: wall time from spawn to exit, the CPU time it and its children used, exit status, output.
// A burst request ({ burst: [...], procs: [...] }) starts all its programs at once, each inside a
// cgroup (bench/cgroup.ts) that it joins before exec, and answers when the last one has exited.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

interface Request {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly input: string;
}

// cutime + cstime of /proc/self/stat: the CPU time of every waited-for descendant, in clock
// ticks (USER_HZ, 100 on Linux). Coarse per run, but its mean over many runs is exact, and
// unlike wall time it hardly moves with the machine's load.
const TICK_MS = 10;
function childrenCpuTicks(): number {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}

// Joins every cgroup named before "--", then execs the program: only the program is accounted.
const JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

function runOne({ cmd, args, env, input }: Request, procs: readonly string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn('/bin/sh', ['-c', JOIN, 'sh', ...procs, '--', cmd, ...args], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => done({ status: null, stderr: e.message }));
    child.on('close', (status) => done({ status, stderr }));
    // A program that exits without reading its input (cnitool) must not kill the agent.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line) as Request | { burst: Request[]; procs: string[] };
  if ('burst' in request) {
    const t0 = process.hrtime.bigint();
    const results = await Promise.all(request.burst.map((r) => runOne(r, request.procs)));
    process.stdout.write(`${JSON.stringify({ ms: Number(process.hrtime.bigint() - t0) / 1e6, results })}\n`);
    continue;
  }
  const { cmd, args, env, input } = request;
  const cpu0 = childrenCpuTicks();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, input, maxBuffer: 64 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const answer = {
    ms,
    cpuMs: (childrenCpuTicks() - cpu0) * TICK_MS,
    status: r.status,
    stdout: r.stdout?.toString() ?? '',
    stderr: r.stderr?.toString() ?? '',
    ...(r.error && { error: r.error.message }),
  };
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
