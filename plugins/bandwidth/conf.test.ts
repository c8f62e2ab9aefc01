// Messages and precedence are the reference's (plugins/meta/bandwidth/main.go v1.9.0 and its
// bandwidth_linux_test.go: "should apply static config when both static config and runtime
// config exist"); the sentinel rule is ours (docs/divergences.md).
import t, { type Test } from 'tap';
import { makeRequest } from '../../lib/ipam/test-request.ts';
import { CniError } from '../../lib/cni-spec/index.ts';
import { loadConf } from './conf.ts';

const base = { cniVersion: '1.0.0', name: 'net1', type: 'bandwidth' };
const load = (extra: object) => loadConf(makeRequest({ ...base, ...extra }));

function refused(t: Test, extra: object, msg: string | RegExp, field: string) {
  try {
    load(extra);
    t.fail(`accepted ${JSON.stringify(extra)}`);
  } catch (err) {
    t.type(err, CniError);
    t.match(err, { code: 7, msg, details: new RegExp(`^${field.replaceAll('.', '\\.')}: `) }, `${JSON.stringify(extra)} → ${msg}`);
  }
}

t.test('static keys: bits to bytes', async (t) => {
  const c = load({ ingressRate: 8000, ingressBurst: 80, egressRate: 16, egressBurst: 8 });
  t.same(c.ingress, { rateBytes: 1000n, burst: 10 });
  t.same(c.egress, { rateBytes: 2n, burst: 1 });
  t.equal(c.source, 'static');
});

t.test("the reference's validation messages, code 7, naming the field", async (t) => {
  refused(t, { ingressRate: 123 }, 'if rate is set, burst must also be set', 'ingressBurst');
  refused(t, { ingressBurst: 123, egressRate: 123, egressBurst: 123 }, 'if burst is set, rate must also be set', 'ingressRate');
  refused(t, { egressRate: 1000, egressBurst: 34359738360 }, 'burst cannot be more than 4GB', 'egressBurst');
  refused(t, { runtimeConfig: { bandwidth: { egressBurst: 5 } } }, 'if burst is set, rate must also be set', 'runtimeConfig.bandwidth.egressRate');
  refused(t, { ingressRate: -8, ingressBurst: 8 }, 'ingressRate must be a non-negative integer (got -8)', 'ingressRate');
  refused(t, { ingressRate: 'fast' }, 'invalid network config', 'ingressRate');
  refused(t, { ingressRate: 7, ingressBurst: 800 }, 'rate must be at least 8 bits/s', 'ingressRate');
  refused(t, { egressRate: 800, egressBurst: 4 }, 'burst must be at least 8 bits', 'egressBurst');
  // 4 GiB − 8 bits is still allowed: burst/8 = 2^32 − 2
  t.ok(load({ egressRate: 1000, egressBurst: 34359738352 }).egress);
});

t.test('values the kernel cannot take are code 7 naming the field (found by the bad-input generator)', async (t) => {
  // Go decodes into uint64: 2^64 and above do not fit. Ours crashed in the tc encoder (999).
  refused(t, { ingressRate: 2 ** 64, ingressBurst: 800 }, 'ingressRate must be less than 2^64 (got 18446744073709552000)', 'ingressRate');
  refused(
    t,
    { runtimeConfig: { bandwidth: { egressRate: 1e300, egressBurst: 800 } } },
    /^egressRate must be less than 2\^64/,
    'runtimeConfig.bandwidth.egressRate',
  );
  refused(t, { egressRate: 800, egressBurst: 2 ** 70 }, /^egressBurst must be less than 2\^64/, 'egressBurst');
  // A bucket that drains in under 1 µs is 0 µs for tbf: the kernel answered EINVAL after the ifb was made.
  const maxBurst = 34359738352; // bits: 2^32 − 2 bytes, the largest burst allowed
  const maxRate = (2 ** 32 - 2) * 8 * 1e6; // bits/s: that bucket drains in exactly 1 µs
  t.ok(load({ ingressRate: maxRate, ingressBurst: maxBurst }).ingress, 'a bucket of exactly 1 µs is taken');
  refused(t, { ingressRate: maxRate + 8, ingressBurst: maxBurst }, /^burst is too small for the rate: at 34359738352000008 bits\/s/, 'ingressBurst');
  refused(t, { egressRate: 2 ** 63, egressBurst: 80000 }, /^burst is too small for the rate/, 'egressBurst');
  refused(t, { ingressRate: 10e9, ingressBurst: 8000 }, /^burst is too small for the rate: .*\(10000 bits\)$/, 'ingressBurst');
  // a runtime sentinel's bucket is sized from the rate, up to 2^32 − 2 bytes: past that the rate is at fault
  const sentinel = (rate: number) => ({ runtimeConfig: { bandwidth: { ingressRate: rate, ingressBurst: 4294967295 } } });
  t.same(load(sentinel(maxRate)).ingress, { rateBytes: BigInt(maxRate / 8), burst: 'from-rate' });
  refused(t, sentinel(2 ** 63), /^rate is too high for tbf/, 'runtimeConfig.bandwidth.ingressRate');
});

t.test('static keys win over runtimeConfig, even when invalid (reference test)', async (t) => {
  const rc = { runtimeConfig: { bandWidth: { ingressRate: 8, ingressBurst: 8, egressRate: 16, egressBurst: 9 } } };
  refused(t, { ingressRate: 0, ingressBurst: 123, egressRate: 123, egressBurst: 123, ...rc }, 'if burst is set, rate must also be set', 'ingressRate');
  const c = load(rc);
  t.equal(c.source, 'runtimeConfig', 'the capability is read when no static key is present (key case folded: bandWidth)');
  t.same(c.ingress, { rateBytes: 1n, burst: 1 });
});

t.test('all zero or nothing: no shaping', async (t) => {
  t.same(load({}), { network: 'net1', source: 'none' });
  const z = load({ ingressRate: 0, ingressBurst: 0, egressRate: 0, egressBurst: 0 });
  t.equal(z.ingress, undefined);
  t.equal(z.egress, undefined);
});

t.test('runtime sentinels: the burst is sized from the rate, unless referenceBurst', async (t) => {
  const containerd = { runtimeConfig: { bandwidth: { ingressRate: 10000000, ingressBurst: 4294967295, egressRate: 10000000, egressBurst: 4294967295 } } };
  t.same(load(containerd).ingress, { rateBytes: 1250000n, burst: 'from-rate' });
  t.same(load(containerd).egress, { rateBytes: 1250000n, burst: 'from-rate' });
  const dockershim = { runtimeConfig: { bandwidth: { egressRate: 10000000, egressBurst: 2147483647 } } };
  t.same(load(dockershim).egress, { rateBytes: 1250000n, burst: 'from-rate' });
  t.same(load({ ...containerd, referenceBurst: true }).ingress, { rateBytes: 1250000n, burst: 536870911 }, 'opt-out: the literal burst');
  t.same(load({ ingressRate: 10000000, ingressBurst: 4294967295 }).ingress, { rateBytes: 1250000n, burst: 536870911 }, 'static keys mean what they say');
  t.same(
    load({ runtimeConfig: { bandwidth: { ingressRate: 10000000, ingressBurst: 4294967294 } } }).ingress,
    { rateBytes: 1250000n, burst: 536870911 },
    'only the exact sentinels',
  );
  t.same(load({ runtimeConfig: { bandwidth: { ingressRate: 0, ingressBurst: 4294967295 } } }).ingress, undefined, 'a sentinel without a rate is no shaping');
});
