// Shaping measured with iperf3 between the node and a pod on a bridge + host-local → bandwidth
// chain (as built): 10 Mbit/s each way within 10 %, an unshaped pod on the same bridge at least
// 10 × faster; the values containerd passes for a `10M` annotation stay within the rate from the
// first second, while the reference's reading of them (referenceBurst) does not.
import t, { type Test } from 'tap';
import { bandwidthConflist, iperf, makeBwPod, makeBwWorld, mbit, startIperfServer, type BwPod, type Throughput } from '../helpers/bandwidth.ts';
import { needsRoot } from '../../test-support/sh.ts';

const RATE = 10_000_000;
const SECONDS = 4;

async function up(t: Test, pod: BwPod): Promise<string> {
  const r = await pod.att.add();
  t.teardown(() => pod.att.del().catch(() => undefined));
  await startIperfServer(t, pod.ns.name);
  return (r.ips[0].address as string).split('/')[0] as string;
}

/** Measures again when a figure lands outside the band: the machine is shared and busy. */
async function measure(node: string, addr: string, dir: 'into' | 'out', ok: (m: Throughput) => boolean): Promise<Throughput> {
  let m = await iperf(node, addr, dir, SECONDS);
  for (let i = 0; i < 2 && !ok(m); i++) m = await iperf(node, addr, dir, SECONDS);
  return m;
}

const within10 = (m: Throughput) => Math.abs(m.bps - RATE) <= RATE * 0.1;

t.test('10 Mbit/s each way (static keys); an unshaped pod is ≥ 10 × faster', { skip: needsRoot, timeout: 120_000 }, async (t) => {
  const w = await makeBwWorld(t);
  const shaped = await makeBwPod(t, w, bandwidthConflist(w.dataDir, { ingressRate: RATE, ingressBurst: 100_000, egressRate: RATE, egressBurst: 100_000 }));
  const plain = await makeBwPod(t, w, bandwidthConflist(w.dataDir));
  const shapedAddr = await up(t, shaped);
  const plainAddr = await up(t, plain);

  const into = await measure(w.node.name, shapedAddr, 'into', within10);
  t.ok(within10(into), `node → pod (ingress): ${mbit(into.bps)} within 10 % of 10 Mbit/s`);
  const out = await measure(w.node.name, shapedAddr, 'out', within10);
  t.ok(within10(out), `pod → node (egress): ${mbit(out.bps)} within 10 % of 10 Mbit/s`);

  const fast = (m: Throughput) => m.bps >= 10 * RATE;
  const plainInto = await measure(w.node.name, plainAddr, 'into', fast);
  const plainOut = await measure(w.node.name, plainAddr, 'out', fast);
  t.ok(fast(plainInto), `unshaped node → pod: ${mbit(plainInto.bps)} ≥ 100 Mbit/s`);
  t.ok(fast(plainOut), `unshaped pod → node: ${mbit(plainOut.bps)} ≥ 100 Mbit/s`);
});

const CONTAINERD_10M = { bandwidth: { ingressRate: RATE, ingressBurst: 4294967295, egressRate: RATE, egressBurst: 4294967295 } };
const firstSecondsOk = (m: Throughput) => m.intervals.length >= SECONDS - 1 && m.intervals.every((b) => b <= RATE * 1.1);

t.test(
  "containerd's `10M` annotation (burst 2^32 − 1 via runtimeConfig): within the rate from the first second",
  { skip: needsRoot, timeout: 120_000 },
  async (t) => {
    const w = await makeBwWorld(t);
    const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir), CONTAINERD_10M);
    const addr = await up(t, pod);
    for (const dir of ['into', 'out'] as const) {
      // Both figures ask for another sample when missed: a starved second drags the average
      // under the band (7.5 Mbit/s in one second of a CI run), while shaping that lets the
      // first second through fails every sample.
      const m = await measure(w.node.name, addr, dir, (x) => firstSecondsOk(x) && within10(x));
      t.ok(firstSecondsOk(m), `${dir === 'into' ? 'node → pod' : 'pod → node'}: every second ≤ 11 Mbit/s: ${m.intervals.map(mbit).join(', ')}`);
      t.ok(within10(m), `and the average is the rate: ${mbit(m.bps)}`);
    }
  },
);

t.test(
  'control: with referenceBurst the same values pass the first second unshaped (the reference behaviour)',
  { skip: needsRoot, timeout: 60_000 },
  async (t) => {
    const w = await makeBwWorld(t);
    const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir, { referenceBurst: true }), CONTAINERD_10M);
    const addr = await up(t, pod);
    const m = await iperf(w.node.name, addr, 'into', 2);
    t.ok((m.intervals[0] ?? 0) > 5 * RATE, `first second node → pod: ${mbit(m.intervals[0] ?? 0)} > 50 Mbit/s`);
  },
);
