// Bad input to the built bandwidth: the reference's messages, the right code, exit 1, and the
// node unchanged (no ifb, no qdisc on the host veth). The pod comes from bridge + host-local.
import t from 'tap';
import { bandwidthConflist, BW_NETWORK, ifbsIn, makeBwPod, makeBwWorld, qdiscKinds } from '../helpers/bandwidth.ts';
import { makeNetns } from '../helpers/netns.ts';
import { execPlugin } from '../helpers/plugins.ts';
import { needsRoot, run } from '../../test-support/sh.ts';

interface Case {
  name: string;
  conf: (prev: any, hostVeth: string) => Record<string, unknown>;
  ifname?: string;
  /** run against the pod whose eth0 is a bridge, not a veth */
  dummyPod?: boolean;
  code: number;
  msg: RegExp;
  details?: RegExp;
}

const ok = { ingressRate: 1_000_000, ingressBurst: 80_000, egressRate: 1_000_000, egressBurst: 80_000 };
const base = (prev: unknown, extra: object = ok) => ({ cniVersion: '1.0.0', name: BW_NETWORK, type: 'bandwidth', ...extra, prevResult: prev });

const CASES: Case[] = [
  {
    name: 'rate without burst',
    conf: (p) => base(p, { ingressRate: 123 }),
    code: 7,
    msg: /^if rate is set, burst must also be set$/,
    details: /^ingressBurst: /,
  },
  {
    name: 'burst without rate',
    conf: (p) => base(p, { ingressBurst: 123, egressRate: 123, egressBurst: 123 }),
    code: 7,
    msg: /^if burst is set, rate must also be set$/,
    details: /^ingressRate: /,
  },
  {
    name: 'burst of 4 GiB',
    conf: (p) => base(p, { egressRate: 1000, egressBurst: 34_359_738_360 }),
    code: 7,
    msg: /^burst cannot be more than 4GB$/,
    details: /^egressBurst: /,
  },
  {
    name: 'runtimeConfig burst without rate',
    conf: (p) => base(p, { runtimeConfig: { bandwidth: { egressBurst: 800 } } }),
    code: 7,
    msg: /^if burst is set, rate must also be set$/,
    details: /^runtimeConfig\.bandwidth\.egressRate: /,
  },
  {
    name: 'a rate that is not a number',
    conf: (p) => base(p, { ingressRate: '10M', ingressBurst: 800 }),
    code: 7,
    msg: /^invalid network config$/,
    details: /ingressRate/,
  },
  {
    name: 'cniVersion 0.2.0',
    conf: (p) => ({ ...base(p), cniVersion: '0.2.0', prevResult: { cniVersion: '0.2.0', ip4: { ip: '10.251.0.9/24' } } }),
    code: 1,
    msg: /^incompatible CNI versions$/,
  },
  {
    name: 'no prevResult',
    conf: () => ({ cniVersion: '1.0.0', name: BW_NETWORK, type: 'bandwidth', ...ok }),
    code: 7,
    msg: /^must be called as chained plugin$/,
  },
  { name: 'prevResult without interfaces', conf: (p) => base({ ...p, interfaces: [] }), code: 7, msg: /^no interfaces provided$/ },
  {
    name: 'prevResult without the host veth',
    conf: (p, hostVeth) => base({ ...p, interfaces: p.interfaces.filter((i: { name: string }) => i.name !== hostVeth) }),
    code: 7,
    msg: /^no veth peer of container interface found in host ns$/,
  },
  {
    name: 'CNI_IFNAME not in the pod',
    ifname: 'eth9',
    conf: (p) => base(p),
    code: 7,
    msg: /^container interface eth9 has no veth peer: could not look up "eth9"/,
  },
  {
    name: 'a pod interface that is not a veth',
    dummyPod: true,
    conf: (p) => base(p),
    code: 7,
    msg: /^container interface eth0 has no veth peer: interface "eth0" was not a veth interface$/,
  },
];

t.test('bad input: code, exit 1, nothing changed', { skip: needsRoot, timeout: 60_000 }, async (t) => {
  const w = await makeBwWorld(t);
  const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir));
  const prev = await pod.att.add();
  t.teardown(() => pod.att.del());
  const hostVeth = prev.interfaces[1].name as string;
  const dummy = await makeNetns(t, 'bwdummy');
  await run('ip', ['-n', dummy.name, 'link', 'add', 'eth0', 'type', 'bridge']);

  for (const c of CASES) {
    const netns = c.dummyPod ? dummy.path : pod.ns.path;
    const r = await execPlugin(
      'bandwidth',
      { command: 'ADD', containerId: pod.id, netns, ifname: c.ifname ?? 'eth0', nodeNetns: w.node.name },
      c.conf(prev, hostVeth),
    );
    t.equal(r.code, 1, `${c.name}: exit 1`);
    t.match(r.json, { code: c.code, msg: c.msg, ...(c.details && { details: c.details }) }, `${c.name}: ${r.stdout.replace(/\s+/g, ' ').trim()}`);
    t.same(await ifbsIn(w.node.name), [], `${c.name}: no ifb`);
    t.same(await qdiscKinds(w.node.name, hostVeth), ['noqueue'], `${c.name}: no qdisc on the host veth`);
  }
});

t.test('all zero: prevResult unchanged, nothing done', { skip: needsRoot }, async (t) => {
  const w = await makeBwWorld(t);
  const pod = await makeBwPod(t, w, bandwidthConflist(w.dataDir));
  const prev = await pod.att.add();
  t.teardown(() => pod.att.del());
  const zero = { ingressRate: 0, ingressBurst: 0, egressRate: 0, egressBurst: 0 };
  const r = await execPlugin(
    'bandwidth',
    { command: 'ADD', containerId: pod.id, netns: pod.ns.path, ifname: 'eth0', nodeNetns: w.node.name },
    base(prev, zero),
  );
  t.equal(r.code, 0);
  t.same(r.json, prev, 'the result is prevResult');
  t.same(await ifbsIn(w.node.name), []);
  t.same(await qdiscKinds(w.node.name, prev.interfaces[1].name), ['noqueue']);
});
