// npm run soak -- [--workers 8] [--seconds 600] [--kill-every 20] [--plugin-dir DIR]
// Churn: each worker repeatedly ADDs, CHECKs and DELs its own pod through the conflist
// (bridge + host-local; portmap and bandwidth join as entries of PLUGINS once they exist), in a
// throwaway node netns, and now and then SIGKILLs a plugin mid-ADD (the runtime then DELs, as
// libcni's callers do). No two live pods may ever share an address. At the end every pod is
// DELeted, a GC runs with no valid attachments, and nothing may be left: links, rules, qdiscs,
// IPAM files. Prints operations done, failures by code, duplicates and leftovers.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Rng } from '../bad-input/rng.ts';
import { DIST_BIN } from '../helpers/plugins.ts';
import { uniqueName } from '../helpers/netns.ts';
import { masqRules, nodeVeths, podLinks, spoofRules } from '../helpers/node-state.ts';
import { nsExec, run, tryRun } from '../helpers/sh.ts';

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
const NETWORK = 'soak';
const node = uniqueName('soakn');
const dataDir = mkdtempSync(join(tmpdir(), 'cnits-soak-'));
// The chain, in order; DEL runs it backwards. One entry per plugin.
const PLUGINS = [
  {
    type: 'bridge',
    bridge: 'cnitssoak0',
    isGateway: true,
    ipMasq: true,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.86.0.0/22' }], [{ subnet: 'fd00:86::/64' }]] },
  },
];

interface Run {
  code: number | null;
  signal: string | null;
  stdout: string;
}

interface Call {
  readonly plugin: string;
  readonly verb: string;
  readonly id: string;
  readonly netns: string;
  readonly conf: object;
}

function exec({ plugin, verb, id, netns, conf }: Call, killAfterMs?: number): Promise<Run> {
  const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', CNI_COMMAND: verb, CNI_CONTAINERID: id, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: o.pluginDir };
  return new Promise((done) => {
    const child = spawn('ip', ['netns', 'exec', node, join(o.pluginDir, plugin)], { env, stdio: ['pipe', 'pipe', 'ignore'] });
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

const conf = (p: object, prevResult?: unknown) => ({ cniVersion: '1.0.0', name: NETWORK, ...p, ...(prevResult !== undefined && { prevResult }) });

interface Pod {
  readonly id: string;
  readonly netns: string;
}

async function chain(
  verb: 'ADD' | 'CHECK' | 'DEL',
  { id, netns }: Pod,
  prev?: unknown,
  killAfterMs?: number,
): Promise<{ ok: boolean; result?: any; why?: string }> {
  const list = verb === 'DEL' ? [...PLUGINS].reverse() : PLUGINS;
  let result = prev;
  for (const p of list) {
    const r = await exec({ plugin: p.type, verb, id, netns, conf: conf(p, verb === 'ADD' ? (result === prev ? undefined : result) : result) }, killAfterMs);
    if (r.signal === 'SIGKILL') return { ok: false, why: 'SIGKILL (ours)' };
    if (r.code !== 0) {
      let code = 'no JSON';
      try {
        code = `code ${JSON.parse(r.stdout).code}`;
      } catch {
        // not JSON: reported as such
      }
      return { ok: false, why: `${verb} ${code}: ${r.stdout.replace(/\s+/g, ' ').slice(0, 200)}` };
    }
    if (verb === 'ADD') result = JSON.parse(r.stdout);
  }
  return { ok: true, result };
}

const stats = { ops: 0, add: 0, check: 0, del: 0, killed: 0 };
const failures = new Map<string, number>();
const live = new Map<string, string>(); // address → container id
const duplicates: string[] = [];
const pods: string[] = [];

function fail(why: string): void {
  failures.set(why, (failures.get(why) ?? 0) + 1);
}

async function worker(w: number, until: number): Promise<void> {
  const pod = uniqueName(`soakp${w}`);
  await run('ip', ['netns', 'add', pod]);
  pods.push(pod);
  const netns = `/run/netns/${pod}`;
  for (let i = 0; Date.now() < until; i++) {
    const id = `soak-${w}-${i}`;
    const kill = o.killEvery > 0 && rng.int(o.killEvery) === 0 ? rng.int(400) : undefined;
    const add = await chain('ADD', { id, netns }, undefined, kill);
    stats.ops++;
    if (add.ok) {
      stats.add++;
      const ips: string[] = (add.result?.ips ?? []).map((x: { address: string }) => x.address.split('/')[0]);
      for (const ip of ips) {
        const holder = live.get(ip);
        if (holder !== undefined) duplicates.push(`${ip}: ${holder} and ${id}`);
        live.set(ip, id);
      }
      const check = await chain('CHECK', { id, netns }, add.result);
      stats.ops++;
      if (check.ok) stats.check++;
      else fail(check.why ?? 'CHECK failed');
      for (const ip of ips) live.delete(ip);
    } else if (add.why === 'SIGKILL (ours)') stats.killed++;
    else fail(add.why ?? 'ADD failed');
    const del = await chain('DEL', { id, netns }, add.result);
    stats.ops++;
    if (del.ok) stats.del++;
    else fail(del.why ?? 'DEL failed');
  }
}

async function leftovers(): Promise<Record<string, string[]>> {
  const files = (() => {
    try {
      return readdirSync(join(dataDir, NETWORK)).filter((f) => f !== 'lock' && !f.startsWith('last_reserved_ip'));
    } catch {
      return [];
    }
  })();
  const qdiscs = (await nsExec(node, 'tc', ['qdisc', 'show'])).stdout.split('\n').filter((l) => l !== '' && !/noqueue|noop/.test(l));
  const podIfs = (await Promise.all(pods.map((p) => podLinks(p)))).flat();
  const found = {
    'veths in node': await nodeVeths(node),
    'links in pods': podIfs,
    'IPAM files': files,
    'masquerade rules': await masqRules(node),
    'spoofcheck rules': await spoofRules(node),
    qdiscs,
  };
  return Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
}

await run('ip', ['netns', 'add', node]);
await run('ip', ['-n', node, 'link', 'set', 'lo', 'up']);
const t0 = Date.now();
try {
  await Promise.all(Array.from({ length: o.workers }, (_, w) => worker(w, t0 + o.seconds * 1000)));
  const secs = (Date.now() - t0) / 1000;
  // The end: GC with no valid attachment releases whatever a killed ADD left in the store.
  for (const p of PLUGINS) {
    const r = await exec({
      plugin: p.type,
      verb: 'GC',
      id: 'gc',
      netns: '',
      conf: { cniVersion: '1.1.0', name: NETWORK, ...p, 'cni.dev/valid-attachments': [] },
    });
    if (r.code !== 0) fail(`GC ${r.stdout.replace(/\s+/g, ' ').slice(0, 200)}`);
  }
  const left = await leftovers();
  console.log(`soak: ${o.workers} workers, ${secs.toFixed(0)} s, seed ${o.seed}, plugins ${PLUGINS.map((p) => p.type).join(' → ')}`);
  console.log(
    `operations: ${stats.ops} (${(stats.ops / secs).toFixed(1)}/s): ${stats.add} ADD ok, ${stats.check} CHECK ok, ${stats.del} DEL ok, ${stats.killed} ADD killed by SIGKILL`,
  );
  console.log(`failures other than our SIGKILLs: ${failures.size === 0 ? 'none' : ''}`);
  for (const [why, n] of failures) console.log(`  ${n}× ${why}`);
  console.log(`duplicate live addresses: ${duplicates.length}${duplicates.length ? `: ${duplicates.slice(0, 5).join('; ')}` : ''}`);
  console.log(`leftovers: ${Object.keys(left).length === 0 ? 'none' : JSON.stringify(left)}`);
  process.exitCode = failures.size > 0 || duplicates.length > 0 || Object.keys(left).length > 0 ? 1 : 0;
} finally {
  for (const p of pods) await tryRun('ip', ['netns', 'del', p]);
  await tryRun('ip', ['netns', 'del', node]);
  rmSync(dataDir, { recursive: true, force: true });
}
