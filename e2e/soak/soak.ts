// npm run soak -- [--workers 8] [--seconds 600] [--kill-every 20] [--plugin-dir DIR] [--seed N]
// Churn through the Kubernetes chain of conf-examples/k8s-node.conflist (bridge + host-local →
// portmap → bandwidth), run the way libcni runs it (prevResult chaining, capability args into
// runtimeConfig, DEL in reverse order, a results cache), in a throwaway node netns. Each worker
// repeatedly ADDs, CHECKs and DELs its own pod, with its own hostPorts and bandwidth. About
// once every --kill-every chain runs, one plugin process of that ADD or DEL, chosen at random,
// gets SIGKILL after a random delay; as a runtime would, we then DEL (after a killed ADD) or
// DEL again (after a killed DEL). No two live pods may ever share an address. At the end every
// pod is DELeted, GC runs with no valid attachment, and nothing may be left (leftovers.ts).
// Prints operations, failures by verb, plugin and code, duplicates and leftovers.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseConflist } from '../../tools/libcni/conflist.ts';
import { buildPluginConfig } from '../../tools/libcni/inject.ts';
import { deleteResult, loadResult, saveResult } from '../../tools/libcni/cache.ts';
import { Rng } from '../bad-input/rng.ts';
import { uniqueName } from '../helpers/netns.ts';
import { DIST_BIN } from '../helpers/plugins.ts';
import { run, tryRun } from '../../test-support/sh.ts';
import { leftovers } from './leftovers.ts';

function args() {
  const o = { workers: 8, seconds: 600, killEvery: 20, pluginDir: DIST_BIN, seed: Date.now() % 1_000_000 };
  const a = process.argv.slice(2);
  for (let i = 0; i < a.length; i += 2) {
    const v = a[i + 1] ?? '';
    if (a[i] === '--workers') o.workers = Number(v);
    else if (a[i] === '--seconds') o.seconds = Number(v);
    else if (a[i] === '--kill-every') o.killEvery = Number(v);
    else if (a[i] === '--plugin-dir') o.pluginDir = resolve(v);
    else if (a[i] === '--seed') o.seed = Number(v);
    else throw new Error(`unknown argument ${a[i]}`);
  }
  return o;
}

const o = args();
const rng = new Rng(o.seed);
const node = uniqueName('soakn');
const dataDir = mkdtempSync(join(tmpdir(), 'cnits-soak-ipam-'));
const cacheDir = mkdtempSync(join(tmpdir(), 'cnits-soak-cache-'));

// The example list as shipped; only host-local's dataDir moves to the run's own directory.
const LIST = (() => {
  const raw = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../conf-examples/k8s-node.conflist'), 'utf8'));
  for (const p of raw.plugins) if (p.ipam) p.ipam = { ...p.ipam, dataDir };
  return parseConflist(JSON.stringify(raw));
})();
const TYPES = LIST.plugins.map((p) => String(p['type']));

type Verb = 'ADD' | 'CHECK' | 'DEL';

interface Pod {
  readonly id: string;
  readonly netns: string;
  /** what the runtime passes as capability args: this pod's port mappings and bandwidth */
  readonly caps: Record<string, unknown>;
}

/** SIGKILL for the `index`th plugin of the run, `afterMs` after it started. */
interface Kill {
  readonly index: number;
  readonly afterMs: number;
}

interface Exec {
  code: number | null;
  signal: string | null;
  stdout: string;
}

const runtimeConf = (pod: Pod) => ({ containerId: pod.id, netns: pod.netns, ifname: 'eth0', capabilityArgs: pod.caps });

/** One plugin run: `pod` is absent for GC; `killAfterMs` sends it SIGKILL that long after it started. */
interface Call {
  readonly type: string;
  readonly verb: Verb | 'GC';
  readonly pod?: Pod;
  readonly conf: object;
  readonly killAfterMs?: number | undefined;
}

function exec({ type, verb, pod, conf, killAfterMs }: Call): Promise<Exec> {
  const env: Record<string, string> = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', CNI_COMMAND: verb, CNI_PATH: o.pluginDir };
  if (pod) Object.assign(env, { CNI_CONTAINERID: pod.id, CNI_NETNS: pod.netns, CNI_IFNAME: 'eth0' });
  return new Promise((done) => {
    // `ip netns exec` execs the plugin in place: the child's pid is the plugin's.
    const child = spawn('ip', ['netns', 'exec', node, join(o.pluginDir, type)], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(conf));
    const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout: out });
    });
  });
}

/** How a chain run ended: ok with the last result, killed by us, or a plugin's error. */
type Outcome = { ok: true; result?: unknown } | { ok: false; killed: string } | { ok: false; why: string };

/** One verb through the whole list, as libcni does it; `kill` picks one plugin process to SIGKILL. */
async function chain(verb: Verb, pod: Pod, kill?: Kill): Promise<Outcome> {
  const plugins = verb === 'DEL' ? [...LIST.plugins].reverse() : LIST.plugins;
  const cached = verb === 'ADD' ? undefined : loadResult(cacheDir, LIST.name, runtimeConf(pod));
  let prev = cached;
  for (const [i, p] of plugins.entries()) {
    const type = String(p['type']);
    const conf = buildPluginConfig(LIST, p, { prevResult: prev, capabilityArgs: pod.caps });
    const r = await exec({ type, verb, pod, conf, killAfterMs: kill?.index === i ? kill.afterMs : undefined });
    if (r.signal === 'SIGKILL') return { ok: false, killed: type };
    if (r.code !== 0) {
      let code = 'no JSON error';
      try {
        code = `code ${JSON.parse(r.stdout).code}`;
      } catch {
        // reported as such
      }
      return { ok: false, why: `${verb} ${type} ${code}: ${r.stdout.replace(/\s+/g, ' ').slice(0, 160)}` };
    }
    if (verb === 'ADD') prev = JSON.parse(r.stdout);
  }
  if (verb === 'ADD') saveResult(cacheDir, runtimeConf(pod), { network: LIST.name, configBytes: Buffer.from(JSON.stringify(LIST)), result: prev });
  if (verb === 'DEL') deleteResult(cacheDir, LIST.name, runtimeConf(pod));
  return { ok: true, result: prev };
}

const stats = { ops: 0, add: 0, check: 0, del: 0, delRetries: 0 };
const kills = new Map<string, number>(); // "ADD bridge" → n
const failures = new Map<string, number>();
const live = new Map<string, string>(); // address → container id
const duplicates: string[] = [];
const pods: string[] = [];

const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

/** A chain run that counts as one operation; a kill or failure is tallied, never thrown. */
async function op(verb: Verb, pod: Pod, kill?: Kill): Promise<Outcome> {
  const r = await chain(verb, pod, kill);
  stats.ops++;
  if (r.ok) stats[verb === 'ADD' ? 'add' : verb === 'CHECK' ? 'check' : 'del']++;
  else if ('killed' in r) bump(kills, `${verb} ${r.killed}`);
  else bump(failures, r.why);
  return r;
}

/** Capability args of a pod: unique host ports among live pods (one live pod per worker), its own rates. */
function capsFor(w: number, i: number): Record<string, unknown> {
  const port = 10000 + w * 500 + (i % 500);
  const rate = (1 + rng.int(1000)) * 1_000_000;
  // a third of the pods get containerd's "no burst" sentinel, as kubelet + containerd send it
  const burst = rng.int(3) === 0 ? 4294967295 : rate / 10;
  return {
    portMappings: [
      { hostPort: port, containerPort: 80, protocol: 'tcp' },
      { hostPort: port, containerPort: 53, protocol: 'udp' },
    ],
    bandwidth: { ingressRate: rate, ingressBurst: burst, egressRate: rate * 2, egressBurst: burst },
  };
}

function maybeKill(): Kill | undefined {
  if (o.killEvery <= 0 || rng.int(o.killEvery) !== 0) return undefined;
  // within the time a plugin takes here (~40–200 ms), so most kills land mid-run
  return { index: rng.int(TYPES.length), afterMs: rng.int(200) };
}

async function worker(w: number, until: number): Promise<void> {
  const name = uniqueName(`soakp${w}`);
  await run('ip', ['netns', 'add', name]);
  pods.push(name);
  for (let i = 0; Date.now() < until; i++) {
    const pod: Pod = { id: `soak-${w}-${i}`, netns: `/run/netns/${name}`, caps: capsFor(w, i) };
    const add = await op('ADD', pod, maybeKill());
    if (add.ok) {
      const ips: string[] = ((add.result as { ips?: { address: string }[] })?.ips ?? []).map((x) => x.address.split('/')[0] as string);
      for (const ip of ips) {
        const holder = live.get(ip);
        if (holder !== undefined) duplicates.push(`${ip}: ${holder} and ${pod.id}`);
        live.set(ip, pod.id);
      }
      await op('CHECK', pod);
      for (const ip of ips) live.delete(ip);
    }
    // After a failed or killed ADD the runtime DELs too; a killed DEL is retried, as kubelet does.
    let del = await op('DEL', pod, maybeKill());
    for (let tries = 0; !del.ok && tries < 3; tries++) {
      stats.delRetries++;
      del = await op('DEL', pod);
    }
  }
}

/** GC of every plugin with no valid attachment: what a runtime sends once the node has no pod. */
async function gcAll(): Promise<void> {
  for (const p of LIST.plugins) {
    const conf = { ...buildPluginConfig(LIST, p, { validAttachments: [] }), cniVersion: '1.1.0' };
    const r = await exec({ type: String(p['type']), verb: 'GC', conf });
    if (r.code !== 0) bump(failures, `GC ${String(p['type'])}: ${r.stdout.replace(/\s+/g, ' ').slice(0, 160)}`);
  }
}

/**
 * The leftover check must see a pod: one live pod shows up under every kind its chain makes,
 * and after its DEL the node is clean again. Throws otherwise, before the churn starts.
 */
async function controlLeftoverCheck(): Promise<void> {
  const name = uniqueName('soakc');
  await run('ip', ['netns', 'add', name]);
  pods.push(name);
  const pod: Pod = { id: 'soak-control', netns: `/run/netns/${name}`, caps: capsFor(o.workers, 0) };
  const add = await chain('ADD', pod);
  if (!add.ok) throw new Error(`control pod: ADD failed: ${JSON.stringify(add)}`);
  const seen = await leftovers({ node, pods, dataDir, network: LIST.name, cacheDir });
  const want = ['veths in node', 'ifbs in node', 'links in pods', 'qdiscs in node', 'IPAM files', 'results cache', 'masquerade rules'];
  const blind = [...want.filter((k) => !seen[k]), ...(seen['portmap iptables'] || seen['portmap nft'] ? [] : ['portmap rules'])];
  if (blind.length > 0) throw new Error(`the leftover check does not see a live pod's ${blind.join(', ')}: ${JSON.stringify(seen)}`);
  const del = await chain('DEL', pod);
  const after = await leftovers({ node, pods, dataDir, network: LIST.name, cacheDir });
  if (!del.ok || Object.keys(after).length > 0) throw new Error(`control pod: DEL ${JSON.stringify(del)}, left ${JSON.stringify(after)}`);
  console.log(`leftover check, control pod: live it showed ${Object.keys(seen).join(', ')}; after its DEL nothing`);
}

await run('ip', ['netns', 'add', node]);
await run('ip', ['-n', node, 'link', 'set', 'lo', 'up']);
try {
  await controlLeftoverCheck();
  const t0 = Date.now();
  await Promise.all(Array.from({ length: o.workers }, (_, w) => worker(w, t0 + o.seconds * 1000)));
  const secs = (Date.now() - t0) / 1000;
  await gcAll();
  const left = await leftovers({ node, pods, dataDir, network: LIST.name, cacheDir });
  const killed = [...kills.values()].reduce((a, b) => a + b, 0);
  console.log(`soak: ${o.workers} workers, ${secs.toFixed(0)} s, seed ${o.seed}, chain ${TYPES.join(' → ')} (conf-examples/k8s-node.conflist)`);
  console.log(
    `operations: ${stats.ops} (${(stats.ops / secs).toFixed(1)}/s; each one verb through the whole chain): ${stats.add} ADD ok, ${stats.check} CHECK ok, ${stats.del} DEL ok, ${stats.delRetries} DEL retried after a kill`,
  );
  console.log(`killed by our SIGKILL (expected): ${killed}${killed ? ` (${[...kills].map(([k, n]) => `${n}× ${k}`).join(', ')})` : ''}`);
  console.log(`failures other than our SIGKILLs: ${failures.size === 0 ? 'none' : ''}`);
  for (const [why, n] of failures) console.log(`  ${n}× ${why}`);
  console.log(`duplicate live addresses: ${duplicates.length}${duplicates.length ? `: ${duplicates.slice(0, 5).join('; ')}` : ''}`);
  console.log(`leftovers: ${Object.keys(left).length === 0 ? 'none' : JSON.stringify(left)}`);
  process.exitCode = failures.size > 0 || duplicates.length > 0 || Object.keys(left).length > 0 ? 1 : 0;
} finally {
  for (const p of pods) await tryRun('ip', ['netns', 'del', p]);
  await tryRun('ip', ['netns', 'del', node]);
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
}
