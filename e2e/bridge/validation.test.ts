// Bad configurations for bridge + host-local: each ADD fails with code 7 and a message naming
// the field (the reference's wording), and leaves nothing behind; ADDs that fail later (the
// interface name is taken, the bridge holds another address) release what they took.
// Judges the implementation CNI_E2E_FORM names (ours by default, go for the reference; see e2e/helpers/impl.ts).
import t from 'tap';
import { bridgeConf, POD_V4, runBridge } from '../helpers/bridge-net.ts';
import { impl, type Feature } from '../helpers/impl.ts';
import { makeNetns } from '../helpers/netns.ts';
import { ipFiles, leftovers, nodeVeths, podLinks, link } from '../helpers/node-state.ts';
import { execPlugin, type PluginRun } from '../helpers/plugins.ts';
import { run } from '../../test-support/sh.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

// The Go reference returns its config errors untyped, which skel prints as code 999.
const codeSkip = impl.isGoBinary ? 'the Go reference reports config errors as code 999 (untyped error)' : false;
// Nor does it name the failing field in "details".
const detailsSkip = impl.isGoBinary ? 'the Go reference puts no field path in its errors' : false;
// The Go reference does not remove the veth when IPAM fails (it leaves that to the runtime's DEL).
const vethSkip = impl.isGoBinary ? 'the Go reference keeps the veth when a later ADD step fails (left to DEL)' : false;

interface Case {
  readonly name: string;
  /** bridge fields, or a function of the whole config */
  readonly conf: Record<string, unknown> | ((dataDir: string) => Record<string, unknown>);
  readonly msg: RegExp;
  /** the field path the error's details name */
  readonly field: string;
  readonly needs?: Feature;
  /** the error comes from host-local, after the veth exists */
  readonly ipamStage?: boolean;
  readonly cniArgs?: string;
  /** accepted codes (default: 7) */
  readonly codes?: number[];
  /** checked by ADD only: the reference's DEL (loadNetConf) does not look at it either */
  readonly addOnly?: boolean;
}

const ipam =
  (ranges: unknown, extra: object = {}, cniVersion = '1.0.0') =>
  (dataDir: string) => ({
    cniVersion,
    name: 'podnet',
    type: 'bridge',
    ipam: { type: 'host-local', dataDir, ...(ranges !== undefined && { ranges }), ...extra },
  });
const v4 = (r: object) => [[{ subnet: POD_V4.subnet, ...r }]];

const cases: Case[] = [
  { name: 'vlan above 4094', field: 'vlan', conf: { vlan: 5000 }, msg: /invalid VLAN ID 5000 \(must be between 0 and 4094\)/ },
  { name: 'negative vlan', field: 'vlan', conf: { vlan: -1 }, msg: /invalid VLAN ID -1/ },
  { name: 'mtu is a string', field: 'mtu', conf: { mtu: 'x' }, msg: /mtu/i },
  { name: 'bridge is a number', field: 'bridge', conf: { bridge: 5 }, msg: /bridge/ },
  { name: 'isGateway is a string', field: 'isGateway', conf: { isGateway: 'yes' }, msg: /isGateway/ },
  { name: 'ipMasq is a number', field: 'ipMasq', conf: { ipMasq: 1 }, msg: /ipMasq/ },
  {
    name: 'hairpinMode with promiscMode',
    field: 'hairpinMode',
    conf: { hairpinMode: true, promiscMode: true },
    msg: /cannot set hairpin mode and promiscuous mode at the same time/,
    addOnly: true,
  },
  { name: 'invalid MAC in runtimeConfig', field: 'runtimeConfig.mac', conf: { runtimeConfig: { mac: 'zz' } }, msg: /mac/i, addOnly: true },
  { name: 'invalid MAC in args.cni', field: 'args.cni.mac', conf: { args: { cni: { mac: 'zz' } } }, msg: /mac/i, addOnly: true },
  { name: 'invalid MAC in CNI_ARGS', field: 'MAC', conf: {}, cniArgs: 'MAC=zz', msg: /mac/i, codes: [4, 7] },
  { name: 'vlanTrunk: minID without maxID', field: 'vlanTrunk', conf: { vlanTrunk: [{ minID: 5 }] }, msg: /maxID is missing/, needs: 'vlanTrunk' },
  { name: 'vlanTrunk: maxID without minID', field: 'vlanTrunk', conf: { vlanTrunk: [{ maxID: 5 }] }, msg: /minID is missing/, needs: 'vlanTrunk' },
  {
    name: 'vlanTrunk: minID above maxID',
    field: 'vlanTrunk',
    conf: { vlanTrunk: [{ minID: 10, maxID: 5 }] },
    msg: /minID is greater than maxID/,
    needs: 'vlanTrunk',
  },
  { name: 'vlanTrunk: id out of range', field: 'vlanTrunk', conf: { vlanTrunk: [{ id: 5000 }] }, msg: /incorrect trunk id parameter/, needs: 'vlanTrunk' },
  { name: 'vlanTrunk: minID 0', field: 'vlanTrunk', conf: { vlanTrunk: [{ minID: 0, maxID: 5 }] }, msg: /incorrect trunk minID parameter/, needs: 'vlanTrunk' },
  {
    name: 'vlanTrunk: maxID 4095',
    field: 'vlanTrunk',
    conf: { vlanTrunk: [{ minID: 5, maxID: 4095 }] },
    msg: /incorrect trunk maxID parameter/,
    needs: 'vlanTrunk',
  },
  {
    name: 'unknown ipMasqBackend',
    field: 'ipMasqBackend',
    conf: { ipMasq: true, ipMasqBackend: 'bogus' },
    msg: /unknown ipmasq backend/,
    needs: 'ipMasqBackend',
  },
  { name: 'portIsolation is a string', field: 'portIsolation', conf: { portIsolation: 'true' }, msg: /portIsolation/, needs: 'portIsolation' },
  { name: 'macspoofchk is a string', field: 'macspoofchk', conf: { macspoofchk: 'yes' }, msg: /macspoofchk/i, needs: 'macspoofchk' },
  {
    name: 'preserveDefaultVlan is a string',
    field: 'preserveDefaultVlan',
    conf: { preserveDefaultVlan: 'yes' },
    msg: /preserveDefaultVlan/i,
    needs: 'preserveDefaultVlan',
  },
  {
    name: 'disableContainerInterface is a string',
    field: 'disableContainerInterface',
    conf: { disableContainerInterface: 'yes' },
    msg: /disableContainerInterface/i,
    needs: 'disableContainerInterface',
  },
  { name: 'vlanTrunk is a string', field: 'vlanTrunk', conf: { vlanTrunk: 'yes' }, msg: /vlanTrunk/i, needs: 'vlanTrunk' },
  { name: 'ipMasqBackend is a number', field: 'ipMasqBackend', conf: { ipMasq: true, ipMasqBackend: 5 }, msg: /ipMasqBackend/i, needs: 'ipMasqBackend' },
  {
    name: 'disableContainerInterface with IPAM',
    field: 'disableContainerInterface',
    conf: (d) => ({ ...ipam(v4({}))(d), disableContainerInterface: true }),
    msg: /cannot use IPAM when DisableContainerInterface flag is set/,
    needs: 'disableContainerInterface',
    addOnly: true,
  },
  { name: 'subnet with host bits', conf: ipam([[{ subnet: '10.244.0.5/24' }]]), msg: /host bits set/, ipamStage: true, field: 'ipam.ranges' },
  {
    name: 'subnet too small',
    conf: ipam([[{ subnet: '10.244.0.0/31' }]]),
    msg: /Network 10\.244\.0\.0\/31 too small to allocate from/,
    ipamStage: true,
    field: 'ipam.ranges',
  },
  { name: 'subnet not a CIDR', conf: ipam([[{ subnet: 'banana' }]]), msg: /banana/, ipamStage: true, field: 'ipam.ranges' },
  {
    name: 'rangeStart outside the subnet',
    conf: ipam(v4({ rangeStart: '10.245.0.5' })),
    msg: /RangeStart 10\.245\.0\.5 not in network 10\.244\.0\.0\/24/,
    ipamStage: true,
    field: 'ipam.ranges',
  },
  {
    name: 'rangeEnd outside the subnet',
    conf: ipam(v4({ rangeEnd: '10.245.0.5' })),
    msg: /RangeEnd 10\.245\.0\.5 not in network 10\.244\.0\.0\/24/,
    ipamStage: true,
    field: 'ipam.ranges',
  },
  {
    name: 'mixed families in one range set',
    conf: ipam([[{ subnet: POD_V4.subnet }, { subnet: 'fd00::/64' }]]),
    msg: /mixed address families/,
    ipamStage: true,
    field: 'ipam.ranges',
  },
  {
    name: 'overlapping ranges in a set',
    conf: ipam([[{ subnet: POD_V4.subnet }, { subnet: '10.244.0.0/25' }]]),
    msg: /overlap/,
    ipamStage: true,
    field: 'ipam.ranges',
  },
  {
    name: 'overlapping range sets',
    conf: ipam([[{ subnet: POD_V4.subnet }], [{ subnet: '10.244.0.0/25' }]]),
    msg: /range set 0 overlaps with 1/,
    ipamStage: true,
    field: 'ipam.ranges',
  },
  { name: 'empty ranges', conf: ipam([]), msg: /no IP ranges specified/, ipamStage: true, field: 'ipam.ranges' },
  { name: 'no ranges at all', conf: ipam(undefined), msg: /no IP ranges specified/, ipamStage: true, field: 'ipam.ranges' },
  {
    name: 'two IPv4 range sets with cniVersion 0.2.0',
    conf: ipam([[{ subnet: POD_V4.subnet }], [{ subnet: '10.245.0.0/24' }]], {}, '0.2.0'),
    msg: /CNI version 0\.2\.0 does not support more than 1 address per family/,
    ipamStage: true,
    field: 'ipam.ranges',
  },
];

function confOf(c: Case, dataDir: string): Record<string, unknown> {
  return typeof c.conf === 'function' ? c.conf(dataDir) : { ...bridgeConf({ dataDir }), ...c.conf };
}

async function limit<T, R>(items: readonly T[], n: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i] as T);
      }
    }),
  );
  return out;
}

t.test(`[${impl.label}] every bad config fails with code 7 naming the field, leaving nothing`, { skip: impl.lacks() }, async (t) => {
  const runnable = cases.filter((c) => c.needs === undefined || impl.lacks(c.needs) === false);
  // each case in its own node and pod, four at a time; assertions follow, one subtest per case
  const outcomes = await limit(runnable, 4, async (c) => {
    const { node, dataDir } = await makeTopology(t);
    const pod = await makePod(t);
    const r: PluginRun = await runBridge(impl.dir, node.name, 'ADD', confOf(c, dataDir), { ns: pod, id: 'bad' }, c.cniArgs);
    const left = await leftovers({ node: node.name, pod: pod.name, dataDir, network: 'podnet' });
    return { c, r, left };
  });
  for (const { c, r, left } of outcomes) {
    t.test(c.name, async (t) => {
      t.equal(r.code, 1, 'ADD exits 1');
      t.ok(r.json, `prints a JSON error: ${r.stdout.trim() || r.stderr.trim().slice(0, 300)}`);
      t.ok((c.codes ?? [7]).includes(r.json?.code), `code ${(c.codes ?? [7]).join(' or ')} (got ${r.json?.code})`, { skip: codeSkip });
      t.match(String(r.json?.msg ?? '') + ' ' + String(r.json?.details ?? ''), c.msg, "the reference's message");
      t.ok(String(r.json?.details ?? r.json?.msg).includes(c.field), `the error names ${c.field}: ${r.json?.details}`, { skip: detailsSkip });
      t.same(left['IP files'] ?? [], [], 'no IP allocated');
      const { ['IP files']: _, ...links } = left;
      t.same(links, {}, 'no veth, rule or chain left', { skip: c.ipamStage ? vethSkip : false });
    });
  }
  for (const c of cases.filter((c) => !runnable.includes(c))) t.test(c.name, { skip: impl.lacks(c.needs as Feature) }, async () => {});
});

// DEL reads the same config (the reference's DEL loads it first, too): a bad bridge field is
// refused there as well, not taken as "nothing to do". Left out: what only ADD checks (addOnly),
// host-local's range errors (ipamStage) and CNI_ARGS.
t.test(`[${impl.label}] DEL refuses a bad bridge config with code 7 naming the field`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  const delCases = cases.filter((c) => !c.addOnly && !c.ipamStage && c.cniArgs === undefined && (c.needs === undefined || impl.lacks(c.needs) === false));
  t.equal(delCases.length, impl.isGoBinary ? delCases.length : 19, 'every bridge-field case (ours has every feature)');
  const outcomes = await limit(delCases, 4, async (c) => ({
    c,
    r: await runBridge(impl.dir, node.name, 'DEL', confOf(c, dataDir), { ns: pod, id: 'bad-del' }),
  }));
  for (const { c, r } of outcomes) {
    t.test(c.name, async (t) => {
      t.equal(r.code, 1, `DEL exits 1: ${r.stdout.trim()}`);
      t.ok((c.codes ?? [7]).includes(r.json?.code), `code ${(c.codes ?? [7]).join(' or ')} (got ${r.json?.code})`, { skip: codeSkip });
      t.match(String(r.json?.msg ?? '') + ' ' + String(r.json?.details ?? ''), c.msg, "the reference's message");
      t.ok(String(r.json?.details ?? r.json?.msg).includes(c.field), `the error names ${c.field}: ${r.json?.details}`, { skip: detailsSkip });
    });
  }
});

t.test(`[${impl.label}] ADD fails when CNI_IFNAME already exists in the pod, taking nothing`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  await run('ip', ['-n', pod.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0peer']);
  const conf = bridgeConf({ dataDir, bridgeFields: { isGateway: true, ipMasq: true } });
  const r = await runBridge(impl.dir, node.name, 'ADD', conf, { ns: pod, id: 'taken' });
  t.equal(r.code, 1, 'ADD fails');
  t.match(r.json?.msg, /already exists/, `the error says so: ${r.stdout.trim()}`);
  t.same(ipFiles(dataDir, 'podnet'), [], 'no IP allocated');
  t.same(await nodeVeths(node.name), [], 'no veth in the node');
  t.same((await podLinks(pod.name)).sort(), ['eth0', 'eth0peer'], "the pod's own interfaces are untouched");
  t.equal((await link(pod.name, 'eth0'))?.linkinfo?.info_kind, 'veth', 'eth0 is still the pod’s own veth');
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'no rule or chain left');
});

t.test(`[${impl.label}] ADD fails after IPAM (bridge holds another address): the IP is released`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  await run('ip', ['-n', node.name, 'link', 'add', 'cni0', 'type', 'bridge']);
  await run('ip', ['-n', node.name, 'addr', 'add', '10.99.0.1/24', 'dev', 'cni0']);
  const conf = bridgeConf({ dataDir, bridgeFields: { isGateway: true, ipMasq: true } });
  const r = await runBridge(impl.dir, node.name, 'ADD', conf, { ns: pod, id: 'addr-clash' });
  t.equal(r.code, 1, 'ADD fails');
  t.match(r.json?.msg, /"cni0" already has an IP address different from 10\.244\.0\.1\/24/, `the reference's message: ${r.stdout.trim()}`);
  t.same(ipFiles(dataDir, 'podnet'), [], 'the allocated IP was released');
  const left = await leftovers({ node: node.name, pod: pod.name, dataDir, network: 'podnet' });
  t.same(left, {}, 'no veth, rule or chain left', { skip: vethSkip });

  const forced = bridgeConf({ dataDir, bridgeFields: { isGateway: true, forceAddress: true } });
  const again = await runBridge(impl.dir, node.name, 'ADD', forced, { ns: await makeNetns(t, 'pod'), id: 'forced' });
  t.equal(again.code, 0, `with forceAddress the ADD succeeds: ${again.stdout.trim().slice(0, 300)}`);
});

t.test(`[${impl.label}] ADD fails when the bridge name is taken by a non-bridge link`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  await run('ip', ['-n', node.name, 'link', 'add', 'cni0', 'type', 'veth', 'peer', 'name', 'cni0peer']);
  const conf = bridgeConf({ dataDir });
  const r = await runBridge(impl.dir, node.name, 'ADD', conf, { ns: pod, id: 'not-bridge' });
  t.equal(r.code, 1, 'ADD fails');
  t.match(r.json?.msg, /"cni0" already exists but is not a bridge/, `the reference's message: ${r.stdout.trim()}`);
  t.same(ipFiles(dataDir, 'podnet'), [], 'no IP allocated');
  t.same(await podLinks(pod.name), [], 'nothing in the pod');
});

t.test(`[${impl.label}] host-local alone: a config without "ipam" fails naming it`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  const env = { command: 'ADD' as const, containerId: 'no-ipam', netns: pod.path, ifname: 'eth0', cniPath: [impl.dir], nodeNetns: node.name };
  const r = await execPlugin('host-local', env, { cniVersion: '1.0.0', name: 'podnet', type: 'host-local' }, impl.dir);
  t.equal(r.code, 1, 'ADD exits 1');
  t.ok([7].includes(r.json?.code), `code 7 (got ${r.json?.code})`, { skip: codeSkip });
  t.match(r.json?.msg, /IPAM config missing 'ipam' key/, `the reference's message: ${r.stdout.trim()}`);
  t.same(ipFiles(dataDir, 'podnet'), [], 'nothing allocated');
});
