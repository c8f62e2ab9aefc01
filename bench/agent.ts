// The bench's timer inside a network namespace. harness.ts starts one per "node" netns with
// `ip netns exec <node> node --import tsx bench/agent.ts`, once: timing `ip netns exec` around
// every run would add its ~5 ms (a mount namespace and a /sys remount) to every sample, more
// than a Go plugin's whole run. Each stdin line is a JSON run request; each stdout line answers
// one: wall time from spawn to exit, exit status, output.
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';

interface Request {
  readonly cmd: string;
  readonly args: readonly string[];
  readonly env: Record<string, string>;
  readonly input: string;
}

for await (const line of createInterface({ input: process.stdin })) {
  const { cmd, args, env, input } = JSON.parse(line) as Request;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, input, maxBuffer: 64 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const answer = {
    ms,
    status: r.status,
    stdout: r.stdout?.toString() ?? '',
    stderr: r.stderr?.toString() ?? '',
    ...(r.error && { error: r.error.message }),
  };
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
