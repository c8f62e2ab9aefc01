// Test-only: runs lib/linux/netfilter functions in the current netns. The e2e tests start it
// with `ip netns exec <throwaway netns> node --import tsx e2e/linux/netfilter-run.ts '<json>'`, so
// the rules land in that netns and never on the real host.
// Input: { ops: Op[], sequential?: boolean }. Output (stdout): one JSON array, per op
// { ok, ms, error?, name? }. Without `sequential` the ops run concurrently, as parallel
// plugin calls would inside one process.
import * as nf from '../../lib/linux/netfilter/index.ts';

type Op =
  | { fn: 'setupIpMasq'; backend: nf.MasqBackend; target: nf.MasqTarget }
  | { fn: 'teardownIpMasq'; target: nf.MasqTarget }
  | { fn: 'gcIpMasq'; network: string; valid: { containerID: string; ifname: string }[] }
  | { fn: 'setupMacSpoofCheck'; target: nf.SpoofTarget }
  | { fn: 'teardownMacSpoofCheck'; target: nf.SpoofRef };

export interface Outcome {
  ok: boolean;
  ms: number;
  error?: string;
  name?: string;
}

async function runOp(op: Op): Promise<Outcome> {
  const start = performance.now();
  try {
    if (op.fn === 'setupIpMasq') await nf.setupIpMasq(op.backend, op.target);
    else if (op.fn === 'teardownIpMasq') await nf.teardownIpMasq(op.target);
    else if (op.fn === 'gcIpMasq') await nf.gcIpMasq(op.network, op.valid);
    else if (op.fn === 'setupMacSpoofCheck') await nf.setupMacSpoofCheck(op.target);
    else await nf.teardownMacSpoofCheck(op.target);
    return { ok: true, ms: performance.now() - start };
  } catch (err) {
    const e = err as Error;
    return { ok: false, ms: performance.now() - start, error: e.message, name: e.name };
  }
}

const input = JSON.parse(process.argv[2] ?? '{}') as { ops: Op[]; sequential?: boolean };
const outcomes: Outcome[] = [];
if (input.sequential) for (const op of input.ops) outcomes.push(await runOp(op));
else outcomes.push(...(await Promise.all(input.ops.map(runOp))));
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
