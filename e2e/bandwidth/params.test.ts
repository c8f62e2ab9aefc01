// The tbf parameters ADD sets, read back with `tc -j -raw qdisc show` on the host veth
// (ingress) and on the ifb (egress). Expected values are literals: for static keys, what
// Debian's Go bandwidth plugin set on this kernel for the same input (burst_raw is the bucket in
// psched ticks); where the reference's 32-bit arithmetic wraps we send the bucket in bytes, and
// the literal is what the kernel reports for iproute2's `tc qdisc add … tbf rate R burst B limit L`
// (which does the same); for runtime sentinels, the values of our formula worked out by hand:
// burst = max(ceil(rate × 10 ms), MTU + 14) bytes, buffer = burst / rate in ticks of 1/15.625 µs.
import { createHash } from 'node:crypto';
import t from 'tap';
import { bandwidthConflist, ifbsIn, makeBwPod, makeBwWorld, qdiscKinds, tbfOf } from '../helpers/bandwidth.ts';
import { existsSync } from 'node:fs';
import { link } from '../helpers/node-state.ts';
import { execPlugin, GO_BIN } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';

interface Row {
  what: string;
  rate: number;
  burst: number;
  via: 'static' | 'runtime' | 'runtime+referenceBurst';
  want: { rate: number; burst_raw: string; limit: number };
}

const ROWS: Row[] = [
  { what: "the reference's test vector", rate: 8000, burst: 80, via: 'static', want: { rate: 1000, burst_raw: '2625a', limit: 35 } },
  { what: '10 Mbit/s, 125 kB', rate: 10_000_000, burst: 1_000_000, via: 'static', want: { rate: 1_250_000, burst_raw: '17d784', limit: 156_250 } },
  {
    what: 'a bucket of 3333.3 µs (truncated to whole µs first)',
    rate: 24_000_000,
    burst: 80_000,
    via: 'static',
    want: { rate: 3_000_000, burst_raw: 'cb6e', limit: 85_000 },
  },
  { what: '100 Mbit/s', rate: 100_000_000, burst: 800_000, via: 'static', want: { rate: 12_500_000, burst_raw: '1e848', limit: 412_500 } },
  {
    what: '5 GB/s (TCA_TBF_RATE64)',
    rate: 40_000_000_000,
    burst: 8_000_000,
    via: 'static',
    want: { rate: 5_000_000_000, burst_raw: 'c35', limit: 126_000_000 },
  },
  {
    what: '10 GB/s (TCA_TBF_RATE64)',
    rate: 80_000_000_000,
    burst: 8_000_000,
    via: 'static',
    want: { rate: 10_000_000_000, burst_raw: '61a', limit: 251_000_000 },
  },
  {
    what: 'static 2^31 − 1 bits: still fits 32 bits',
    rate: 10_000_000,
    burst: 2_147_483_647,
    via: 'static',
    want: { rate: 1_250_000, burst_raw: 'c7fffff3', limit: 268_466_705 },
  },
  // Go: burst_raw 8fffffe7 (its wrapped ticks; the kernel then holds a 193 MB bucket); ours and tc's: 8ffffff3 with a 537 MB bucket
  {
    what: 'static 2^32 − 1 bits: past 32 bits of ticks',
    rate: 10_000_000,
    burst: 4_294_967_295,
    via: 'static',
    want: { rate: 1_250_000, burst_raw: '8ffffff3', limit: 536_902_161 },
  },
  {
    what: '1 Mbit/s, 50 MB bucket: past 32 bits of ticks',
    rate: 1_000_000,
    burst: 400_000_000,
    via: 'static',
    want: { rate: 125_000, burst_raw: '74876e80', limit: 50_003_125 },
  },
  // runtime sentinels: our formula
  { what: "containerd's 10M", rate: 10_000_000, burst: 4_294_967_295, via: 'runtime', want: { rate: 1_250_000, burst_raw: '2625a', limit: 43_750 } },
  { what: "dockershim's 10M", rate: 10_000_000, burst: 2_147_483_647, via: 'runtime', want: { rate: 1_250_000, burst_raw: '2625a', limit: 43_750 } },
  // 1250 bytes < one frame: 1514 bytes = 12112 µs = 189250 ticks, limit 3125 + 1514
  { what: "containerd's 1M: one full frame", rate: 1_000_000, burst: 4_294_967_295, via: 'runtime', want: { rate: 125_000, burst_raw: '2e342', limit: 4_639 } },
  // 12.5 MB, 10 ms; limit 31.25 MB + 12.5 MB
  {
    what: "containerd's 10G",
    rate: 10_000_000_000,
    burst: 4_294_967_295,
    via: 'runtime',
    want: { rate: 1_250_000_000, burst_raw: '2625a', limit: 43_750_000 },
  },
  {
    what: "containerd's 40G (TCA_TBF_RATE64)",
    rate: 40_000_000_000,
    burst: 4_294_967_295,
    via: 'runtime',
    want: { rate: 5_000_000_000, burst_raw: '2625a', limit: 175_000_000 },
  },
  {
    what: "containerd's 10M with referenceBurst: the literal 537 MB",
    rate: 10_000_000,
    burst: 4_294_967_295,
    via: 'runtime+referenceBurst',
    want: { rate: 1_250_000, burst_raw: '8ffffff3', limit: 536_902_161 },
  },
];

const HAS_GO = existsSync(`${GO_BIN}/bandwidth`);
const ifbOf = (network: string, id: string) =>
  `bwp${createHash('sha512')
    .update(network + id)
    .digest('hex')
    .slice(0, 12)}`;

t.test('tbf parameters for a table of (rate, burst) inputs', { skip: needsRoot, timeout: 180_000 }, async (t) => {
  const w = await makeBwWorld(t);
  for (const row of ROWS) {
    await t.test(`${row.what}: rate ${row.rate} b/s, burst ${row.burst} b (${row.via})`, async (t) => {
      const keys = { ingressRate: row.rate, ingressBurst: row.burst, egressRate: row.rate, egressBurst: row.burst };
      const list = bandwidthConflist(w.dataDir, row.via === 'static' ? keys : row.via === 'runtime+referenceBurst' ? { referenceBurst: true } : {});
      const pod = await makeBwPod(t, w, list, row.via === 'static' ? undefined : { bandwidth: keys });
      const r = await pod.att.add();
      const hostVeth = r.interfaces[1].name as string;
      const ifb = ifbOf('bwnet', pod.id);
      t.same(r.interfaces.at(-1), { name: ifb, mac: (await link(w.node.name, ifb))?.address }, 'the ifb is the last result interface');
      const onVeth = await tbfOf(w.node.name, hostVeth);
      const onIfb = await tbfOf(w.node.name, ifb);
      t.match(onVeth, row.want, `ingress tbf on ${hostVeth}: ${JSON.stringify(onVeth)}`);
      t.match(onIfb, row.want, `egress tbf on ${ifb}: ${JSON.stringify(onIfb)}`);
      await t.resolves(pod.att.check(), 'CHECK passes');
      // The Go plugin's CHECK recomputes its own values and compares them with the live tbf:
      // an oracle for every row where its arithmetic does not wrap.
      const goWraps = row.via !== 'static' || (BigInt(row.burst) * 1_000_000n * 15625n) / 1000n / BigInt(row.rate) >= 2n ** 32n;
      if (HAS_GO && !goWraps) {
        const conf = { cniVersion: '1.0.0', name: 'bwnet', type: 'bandwidth', ...keys, prevResult: r };
        const go = await execPlugin(
          'bandwidth',
          { command: 'CHECK', containerId: pod.id, netns: pod.ns.path, ifname: 'eth0', nodeNetns: w.node.name },
          conf,
          GO_BIN,
        );
        t.equal(go.code, 0, `the Go plugin's CHECK accepts our tbf ${go.stdout.trim()}`);
      }
      await pod.att.del();
      t.same(await ifbsIn(w.node.name), [], 'DEL leaves no ifb');
    });
  }
});

t.test('ifb: up, MTU and queue length of the host veth, alias naming the network; redirect filter on the veth', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir, { egressRate: 1_000_000, egressBurst: 80_000 }));
  const r = await pod.att.add();
  t.teardown(() => pod.att.del());
  const hostVeth = r.interfaces[1].name as string;
  const ifb = await link(w.node.name, ifbOf('bwnet', pod.id));
  const veth = await link(w.node.name, hostVeth);
  t.ok(ifb?.flags.includes('UP'), 'up');
  t.equal(ifb?.mtu, veth?.mtu, 'MTU of the host veth');
  t.equal((ifb as unknown as { txqlen: number }).txqlen, (veth as unknown as { txqlen: number }).txqlen, 'queue length of the host veth');
  t.equal((ifb as unknown as { ifalias?: string }).ifalias, 'cni-bandwidth network=bwnet');
  t.same((await qdiscKinds(w.node.name, hostVeth))?.sort(), ['ingress', 'noqueue'], 'egress only: no tbf on the host veth, an ingress qdisc');
});
