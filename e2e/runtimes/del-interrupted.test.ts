// Every plugin of a chain, after an ADD that ended without a result reaching the runtime: the
// plugin's ADD finished but a later plugin of the chain was killed, or the plugin itself was
// SIGKILLed part-way. The runtime then has no cached result and DELs the whole chain, in
// reverse order, with the config and no prevResult. Nothing of the pod may be left on the node
// (links, ifbs, qdiscs, routes, addresses, masquerade rules, IPAM files, tuning's saved copy), and
// a second DEL succeeds. (bridge, host-local and firewall have their own sweeps: bridge-kill,
// firewall-kill; portmap: portmap-lifecycle and del-prevresult.)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { pluginEnv } from '../../tools/libcni/invoke.ts';
import { ifbsIn } from '../helpers/bandwidth.ts';
import { runKilledAfter, whenSeen, type Outcome, type Trigger } from '../helpers/kill.ts';
import { makeNetns } from '../helpers/netns.ts';
import { ipFiles, leftovers } from '../helpers/node-state.ts';
import { BASE_ENV, DIST_BIN, execPlugin, tempDir } from '../helpers/plugins.ts';
import { ipJson, needsRoot, nsRun, run } from '../../test-support/sh.ts';

interface Chain {
  readonly network: string;
  /** the plugins in ADD order; each `{ type, ... }` without cniVersion and name */
  readonly plugins: readonly Record<string, unknown>[];
  /** the plugin whose ADD ends the chain's ADD (finished or killed) */
  readonly last: number;
  /** a shared link the chain's first ADD creates and that stays (the bridge) */
  readonly shared?: string;
  /** tuning's dataDir, when the chain has tuning */
  readonly tuningDir?: string;
  /** a kill set off by the ADD's own progress (timed kills land wherever a loaded machine puts them) */
  readonly trigger?: { readonly when: string; arm(node: string): Promise<Trigger> };
}

interface World {
  readonly node: string;
  readonly dataDir: string;
  readonly c: Chain;
}

/** Every file under a directory (tuning keeps its saved copies there). */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name));
}

interface Route {
  dst: string;
  dev?: string;
  gateway?: string;
}
interface Addr {
  ifname: string;
  addr_info: { local: string; prefixlen: number; scope: string }[];
}

/** What a pod's attachment may leave in the node and its netns, on top of `leftovers`. */
async function traces(node: string, pod: string, dataDir: string, c: Chain): Promise<Record<string, string[]>> {
  const mine = (dev: string | undefined) => dev !== undefined && dev !== 'lo' && dev !== c.shared;
  const [base, ifbs, routes4, routes6, addrs, qdiscs] = await Promise.all([
    leftovers({ node, pod, dataDir, network: c.network }),
    ifbsIn(node),
    ipJson<Route[]>(node, ['-4', 'route', 'show', 'table', 'all']),
    ipJson<Route[]>(node, ['-6', 'route', 'show', 'table', 'all']),
    ipJson<Addr[]>(node, ['addr', 'show']),
    nsRun(node, 'tc', ['-j', 'qdisc', 'show']).then((s) => JSON.parse(s) as { kind: string; dev: string; handle: string }[]),
  ]);
  const found: Record<string, string[]> = {
    ...base,
    'ifbs in node': ifbs,
    // the node netns is the test's own: any route or address off lo and the shared bridge is a pod's
    'routes in node': [...routes4, ...routes6]
      .filter((r) => mine(r.dev) && !r.dst.startsWith('fe80:') && !r.dst.startsWith('ff00:'))
      .map((r) => `${r.dst} dev ${r.dev}`),
    'addresses in node': addrs
      .filter((a) => mine(a.ifname))
      .flatMap((a) => a.addr_info.filter((i) => i.scope !== 'link').map((i) => `${i.local}/${i.prefixlen} dev ${a.ifname}`)),
    'tbf or ingress qdiscs in node': qdiscs.filter((q) => q.kind === 'tbf' || q.kind === 'ingress').map((q) => `${q.kind} ${q.handle} dev ${q.dev}`),
    "tuning's saved copies": c.tuningDir === undefined ? [] : filesUnder(c.tuningDir),
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
}

/**
 * One pod: the chain's plugins before `last` ADD normally; `last` runs and is killed after
 * `kill` ms (undefined: it finishes, and its result is lost as a later plugin's kill would lose
 * it). Then DEL of the whole chain without prevResult, twice. Returns how the ADD ended and what it had made.
 */
async function interruptedPod(t: Test, w: World, id: string, kill: number | Trigger | undefined): Promise<Outcome> {
  const { node, dataDir, c } = w;
  const pod = await makeNetns(t, 'pod');
  const ids = { containerId: id, netns: pod.path, ifname: 'eth0', nodeNetns: node };
  const confOf = (p: Record<string, unknown>) => ({ cniVersion: '1.0.0', name: c.network, ...p });
  const type = (p: Record<string, unknown>) => p['type'] as string;
  let prevResult: unknown;
  for (const p of c.plugins.slice(0, c.last)) {
    const add = await execPlugin(type(p), { command: 'ADD', ...ids }, { ...confOf(p), ...(prevResult !== undefined && { prevResult }) });
    t.equal(add.code, 0, `${type(p)} ADD succeeds ${add.stderr}`);
    prevResult = add.json;
  }
  const p = c.plugins[c.last] as Record<string, unknown>;
  const env = pluginEnv({ command: 'ADD', containerId: id, netns: pod.path, ifname: 'eth0', cniPath: [DIST_BIN], baseEnv: BASE_ENV });
  const conf = { ...confOf(p), ...(prevResult !== undefined && { prevResult }) };
  const o = await runKilledAfter({ node, exe: join(DIST_BIN, type(p)), env, conf }, kill);
  const when = typeof kill === 'object' ? (c.trigger?.when ?? '') : `after ${kill} ms`;
  const at = kill === undefined ? `${type(p)} ADD finished, result lost` : `${type(p)} ADD killed ${when} (${o.ended})`;
  t.ok(o.ended === 'SIGKILL' || o.ended === 'exit 0', `${at}: killed, or finished with success first`);
  // what the ADD had made shows where a kill landed
  const made = Object.keys(await traces(node, pod.name, dataDir, c))
    .sort()
    .join(', ');

  for (let round = 1; round <= 2; round++) {
    for (const q of [...c.plugins].reverse()) {
      const del = await execPlugin(type(q), { command: 'DEL', ...ids }, confOf(q));
      t.equal(del.code, 0, `${at}: ${type(q)} DEL ${round} without prevResult succeeds ${del.stdout} ${del.stderr}`);
    }
    t.same(await traces(node, pod.name, dataDir, c), {}, `${at}: after DEL ${round}, nothing of the pod is left`);
  }
  return { ...o, ended: `${o.ended}[${made}]` };
}

/** The chain's ADD ended by `last` finishing (result lost), then killed at even steps of its duration. */
async function sweep(t: Test, make: (dataDir: string) => Chain): Promise<void> {
  const node = await makeNetns(t, 'node');
  await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
  const dataDir = tempDir(t, 'cnits-delint-');
  const c = make(dataDir);
  const name = c.plugins[c.last]?.['type'] as string;
  // a first pod makes the shared bridge, which stays
  const w = { node: node.name, dataDir, c };
  const whole = await interruptedPod(t, w, `delint-${name}-0`, undefined);
  t.match(whole.ended, /^exit 0\[/, `${name}'s whole ADD succeeds (${whole.ms.toFixed(0)} ms)`);
  const landed: string[] = [`whole:${whole.ended}`];
  const STEPS = 5;
  for (let i = 0; i < STEPS; i++) {
    const delay = Math.round((i * whole.ms) / (STEPS - 1));
    const o = await interruptedPod(t, w, `delint-${name}-${i + 1}`, delay);
    landed.push(`${delay}ms:${o.ended}`);
  }
  for (let i = 0; c.trigger && i < TRIES; i++) {
    const o = await interruptedPod(t, w, `delint-${name}-t${i}`, await c.trigger.arm(node.name));
    landed.push(`${c.trigger.when}:${o.ended}`);
    if (o.ended.startsWith('SIGKILL')) break;
  }
  t.comment(`${name} kills: ${landed.join(' ')}`);
}

const BRIDGE = 'cni-delint';
/** tries for a progress trigger to kill before the ADD ends */
const TRIES = 3;

/** Fires when `ip monitor link` in the node reports a new link whose name matches. */
async function linkAppears(node: string, name: RegExp): Promise<Trigger> {
  const mon = spawn('ip', ['-n', node, 'monitor', 'link'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const fired = new Promise<void>((resolve) => mon.stdout.on('data', (b: Buffer) => name.test(b.toString()) && resolve()));
  await sleep(100); // subscribed before the ADD starts
  return { fired, stop: () => void (mon.exitCode === null && mon.signalCode === null && mon.kill('SIGKILL')) };
}

function bridgeWith(dataDir: string, subnet: string): Record<string, unknown> {
  return { type: 'bridge', bridge: BRIDGE, isGateway: true, ipMasq: true, ipam: { type: 'host-local', subnet, dataDir } };
}

t.test('tuning, ADD finished or killed with no result kept: DEL of the chain without prevResult leaves nothing', { skip: needsRoot }, (t) =>
  sweep(t, (dataDir) => {
    const tuningDir = join(dataDir, 'tuning');
    const tuning = {
      type: 'tuning',
      dataDir: tuningDir,
      mac: 'c2:b0:57:49:47:f1',
      mtu: 1400,
      promisc: true,
      sysctl: { 'net.ipv4.conf.IFNAME.arp_filter': '1' },
    };
    return {
      network: 'delint-tun',
      plugins: [bridgeWith(dataDir, '10.253.10.0/24'), tuning],
      last: 1,
      shared: BRIDGE,
      tuningDir,
      // between the saved copy and the attributes
      trigger: { when: 'when its saved copy appears', arm: async () => whenSeen(() => filesUnder(tuningDir).length > 0) },
    };
  }),
);

t.test('bandwidth, ADD finished or killed with no result kept: DEL of the chain without prevResult leaves nothing', { skip: needsRoot }, (t) =>
  sweep(t, (dataDir) => {
    const bw = { type: 'bandwidth', ingressRate: 8_000_000, ingressBurst: 80_000, egressRate: 8_000_000, egressBurst: 80_000 };
    return {
      network: 'delint-bw',
      plugins: [bridgeWith(dataDir, '10.253.11.0/24'), bw],
      last: 1,
      shared: BRIDGE,
      // the ifb made, the qdiscs not yet
      trigger: { when: 'when its ifb appears', arm: (node) => linkAppears(node, /^\d+: bwp/m) },
    };
  }),
);

t.test('ptp, ADD finished or killed with no result kept: DEL without prevResult leaves nothing', { skip: needsRoot }, (t) =>
  sweep(t, (dataDir) => {
    const ptp = {
      type: 'ptp',
      ipMasq: true,
      mtu: 1400,
      ipam: {
        type: 'host-local',
        dataDir,
        ranges: [[{ subnet: '10.253.13.0/24' }], [{ subnet: 'fd00:253:13::/64' }]],
        routes: [{ dst: '0.0.0.0/0' }, { dst: '::/0' }],
      },
    };
    return {
      network: 'delint-ptp',
      plugins: [ptp],
      last: 0,
      // the address taken, the veth not yet
      trigger: { when: 'when its IP file appears', arm: async () => whenSeen(() => ipFiles(dataDir, 'delint-ptp').length > 0) },
    };
  }),
);

t.test('ptp with static IPAM, ADD finished or killed with no result kept: DEL without prevResult leaves nothing', { skip: needsRoot }, (t) =>
  sweep(t, () => {
    const ptp = {
      type: 'ptp',
      ipMasq: true,
      ipam: {
        type: 'static',
        addresses: [
          { address: '10.253.14.5/24', gateway: '10.253.14.1' },
          { address: 'fd00:253:14::5/64', gateway: 'fd00:253:14::1' },
        ],
        routes: [{ dst: '0.0.0.0/0' }],
      },
    };
    return { network: 'delint-static', plugins: [ptp], last: 0, trigger: { when: 'when its veth appears', arm: (node) => linkAppears(node, /^\d+: veth/m) } };
  }),
);

t.test('tuning, ADD killed while writing its saved copy (an empty file): DEL without prevResult removes it', { skip: needsRoot }, async (t) => {
  // The window between creating the file and writing it is too short for a timed kill to hit
  // reliably; the file is left as such a kill leaves it.
  const node = await makeNetns(t, 'node');
  const pod = await makeNetns(t, 'pod');
  const dataDir = tempDir(t, 'cnits-delint-');
  const tuningDir = join(dataDir, 'tuning');
  const ids = { containerId: 'delint-tunw', netns: pod.path, ifname: 'eth0', nodeNetns: node.name };
  const tuning = { cniVersion: '1.0.0', name: 'delint-tunw', type: 'tuning', dataDir: tuningDir, mtu: 1400 };
  await run('ip', ['-n', pod.name, 'link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'peer0']);
  mkdirSync(tuningDir, { mode: 0o700 });
  writeFileSync(join(tuningDir, `${ids.containerId}_eth0.json`), '');
  for (let round = 1; round <= 2; round++) {
    const del = await execPlugin('tuning', { command: 'DEL', ...ids }, tuning);
    t.equal(del.code, 0, `DEL ${round} succeeds ${del.stdout}`);
    t.same(filesUnder(tuningDir), [], `after DEL ${round}, no saved copy is left`);
  }
});
