// The bench's timer inside a network namespace. harness.ts starts one per "node" netns with
// `ip netns exec <node> node --import tsx bench/agent.ts`, once: timing `ip netns exec` around
// every run would add its ~5 ms (a mount namespace and a /sys remount) to every sample, more
// than a Go plugin's whole run. Each stdin line is a JSON run request; each stdout line answers
// one: wall time from spawn to exit, the CPU time it and its children used, exit status, output.
import { spawnSync } from 'node:child_process';
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

for await (const line of createInterface({ input: process.stdin })) {
  const { cmd, args, env, input } = JSON.parse(line) as Request;
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
