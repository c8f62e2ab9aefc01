// Runs cases against a plugin directory, a batch at a time in a fresh node netns and pod netns
// (for a chained plugin, with what the plugin before it leaves: the target's `prepare`):
// a positive control (ADD, CHECK, DEL of a valid config must succeed), a snapshot, the cases,
// and a second snapshot. When a batch changed something, its cases are run again one by one,
// each between two snapshots, to find which one did.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uniqueName } from '../helpers/netns.ts';
import { run, tryRun } from '../../test-support/sh.ts';
import { timedExec } from '../helpers/timed-exec.ts';
import type { Case, RunCtx } from './cases.ts';
import { validConfig } from './cases.ts';
import { diff, snapshot } from './snapshot.ts';
import type { Target } from '../../test-support/bad-input/targets.ts';

export interface Outcome {
  readonly id: string;
  readonly class: string;
  readonly plugin: string;
  readonly verb: string;
  readonly ok: boolean;
  /** what was wrong, for a failed case */
  readonly problems: readonly string[];
  /** what the plugin answered: "exit 0" or "code N" or "exit N, no JSON" */
  readonly answer: string;
}

const PATH = '/usr/sbin:/usr/bin:/sbin:/bin';
const STACK = /\n\s+at |RangeError|Maximum call stack|panic:|goroutine \d+/;

interface Env {
  readonly node: string;
  readonly pod: string;
  readonly dataDir: string;
  /** what the target's setup started (dhcp: its server and daemon), stopped when the batch is dropped */
  readonly teardowns: (() => Promise<void>)[];
}

async function makeEnv(): Promise<Env> {
  const node = uniqueName('bin');
  const pod = uniqueName('bip');
  await run('ip', ['netns', 'add', node]);
  await run('ip', ['netns', 'add', pod]);
  await run('ip', ['-n', node, 'link', 'set', 'lo', 'up']);
  return { node, pod, dataDir: mkdtempSync(join(tmpdir(), 'cnits-bi-')), teardowns: [] };
}

async function dropEnv(e: Env): Promise<void> {
  for (const stop of e.teardowns.splice(0).reverse()) await stop();
  await tryRun('ip', ['netns', 'del', e.pod]);
  await tryRun('ip', ['netns', 'del', e.node]);
  rmSync(e.dataDir, { recursive: true, force: true });
}

function cleanEnv(vars: Record<string, string | null>): Record<string, string> {
  const env: Record<string, string> = { PATH };
  for (const [k, v] of Object.entries(vars)) if (v !== null) env[k] = v;
  return env;
}

/** Runs `target` ([plugin dir, plugin]) inside the node netns. */
async function exec(target: readonly [string, string], node: string, vars: Record<string, string | null>, stdin: string) {
  return timedExec(target, cleanEnv(vars), stdin, { nodeNetns: node, timeoutMs: 30_000 });
}

/** The implementation under test. */
export interface Impl {
  readonly pluginDir: string;
  /**
   * Run the cases even when the control's CHECK of a valid config fails (the Go portmap v1.1.1
   * checks a dual-stack pod's IPv6 chain for its IPv4 rules), telling `onControlNote` why.
   * ADD and DEL must still succeed. Ours never needs it.
   */
  readonly lenientCheck?: boolean;
  readonly onControlNote?: (plugin: string, note: string) => void;
}

/** The valid ADD, CHECK, DEL; returns the ADD result for CHECK cases, or throws. */
async function positiveControl(t: Target, e: Env, { pluginDir, lenientCheck, onControlNote }: Impl): Promise<RunCtx> {
  const podPath = `/run/netns/${e.pod}`;
  const teardown = await t.setup?.({ node: e.node, pod: e.pod, podPath, pluginDir, dataDir: e.dataDir });
  if (teardown) e.teardowns.push(teardown);
  const chain = await t.prepare?.({ node: e.node, pod: e.pod, podPath });
  const ctx0: RunCtx = { dataDir: e.dataDir, name: 'bi', podPath, prevResult: undefined, pluginDir, chain };
  const vars = (verb: string) => ({ CNI_COMMAND: verb, CNI_CONTAINERID: 'bi-ctr', CNI_NETNS: ctx0.podPath, CNI_IFNAME: 'eth0', CNI_PATH: pluginDir });
  const add = await exec([ctx0.pluginDir, t.plugin], e.node, vars('ADD'), JSON.stringify(validConfig(t, 'ADD', ctx0)));
  if (add.code !== 0) {
    const standIn = await kernelRefusedControl(t, e, add.stdout);
    if (standIn === undefined) throw new Error(`positive control: ${t.plugin} ADD of a valid config failed: ${add.stdout}${add.stderr}`);
    onControlNote?.(
      t.plugin,
      `this kernel has no ${t.kernelLink?.kind} links: the control's ADD was refused by the kernel (${add.json?.msg}); CHECK cases get a stand-in prevResult`,
    );
    const ctx: RunCtx = { ...ctx0, prevResult: standIn(podPath) };
    const del = await exec([ctx.pluginDir, t.plugin], e.node, vars('DEL'), JSON.stringify(validConfig(t, 'DEL', ctx)));
    if (del.code !== 0) throw new Error(`positive control: ${t.plugin} DEL failed: ${del.stdout}${del.stderr}`);
    return ctx;
  }
  const ctx: RunCtx = { ...ctx0, prevResult: add.json };
  const check = await exec([ctx.pluginDir, t.plugin], e.node, vars('CHECK'), JSON.stringify(validConfig(t, 'CHECK', ctx)));
  if (check.code !== 0) {
    const why = `positive control: ${t.plugin} CHECK failed: ${check.stdout}${check.stderr}`;
    if (!lenientCheck) throw new Error(why);
    onControlNote?.(t.plugin, why);
  }
  const del = await exec([ctx.pluginDir, t.plugin], e.node, vars('DEL'), JSON.stringify(validConfig(t, 'DEL', ctx)));
  if (del.code !== 0) throw new Error(`positive control: ${t.plugin} DEL failed: ${del.stdout}${del.stderr}`);
  return ctx;
}

/**
 * For a target whose link kind this kernel lacks (Target.kernelLink): its stand-in prevResult when
 * the control's ADD failed for that reason alone (EOPNOTSUPP), else undefined.
 */
async function kernelRefusedControl(t: Target, e: Env, addOut: string): Promise<((podPath: string) => Record<string, unknown>) | undefined> {
  const k = t.kernelLink;
  if (k === undefined || !/operation not supported/.test(addOut)) return undefined;
  const probe = await tryRun('ip', ['-n', e.node, 'link', 'add', 'cnitsbikind', 'type', k.kind]);
  if (probe.code === 0) {
    await tryRun('ip', ['-n', e.node, 'link', 'del', 'cnitsbikind']);
    return undefined;
  }
  return /Unknown device type/.test(probe.stderr) ? k.standIn : undefined;
}

async function runCase(c: Case, e: Env, ctx: RunCtx): Promise<Outcome> {
  const r = await exec([ctx.pluginDir, c.plugin], e.node, c.env(ctx), c.stdin(ctx));
  const problems: string[] = [];
  const j = r.json;
  const isErr = j !== null && typeof j === 'object' && !Array.isArray(j) && typeof j.code === 'number' && typeof j.msg === 'string';
  const answer = r.timedOut ? 'hung (killed after 30 s)' : r.code === 0 ? 'exit 0' : isErr ? `code ${j.code}` : `exit ${r.code ?? r.signal}, no JSON error`;
  if (r.timedOut) problems.push('did not return within 30 s');
  if (STACK.test(r.stdout) || STACK.test(r.stderr)) problems.push(`stack trace or crash in output: ${(r.stdout + r.stderr).slice(0, 300)}`);
  if ('success' in c.expect) {
    if (r.code !== 0) problems.push(`expected success, got ${answer}: ${r.stdout.trim().slice(0, 300)}`);
  } else {
    if (r.code !== 1) problems.push(`expected exit 1, got ${r.code ?? r.signal}`);
    if (!isErr) problems.push(`expected exactly one JSON error object on stdout, got ${JSON.stringify(r.stdout.slice(0, 200))}`);
    else if (!c.expect.codes.includes(j.code))
      problems.push(`expected code ${c.expect.codes.join(' or ')}, got ${j.code}: ${j.msg}${j.details ? `; ${j.details}` : ''}`.slice(0, 400));
  }
  return { id: c.id, class: c.class, plugin: c.plugin, verb: c.verb, ok: problems.length === 0, problems, answer };
}

async function inEnv<T>(t: Target, impl: Impl, fn: (e: Env, ctx: RunCtx) => Promise<T>): Promise<T> {
  const e = await makeEnv();
  try {
    return await fn(e, await positiveControl(t, e, impl));
  } finally {
    await dropEnv(e);
  }
}

/** One batch of one target's cases; each failing outcome names what failed. */
export async function runBatch(t: Target, cases: readonly Case[], impl: Impl): Promise<Outcome[]> {
  const { outcomes, changed } = await inEnv(t, impl, async (e, ctx) => {
    const before = await snapshot(e.node, e.pod, e.dataDir);
    const outcomes: Outcome[] = [];
    for (const c of cases) outcomes.push(await runCase(c, e, ctx));
    return { outcomes, changed: diff(before, await snapshot(e.node, e.pod, e.dataDir)).length > 0 };
  });
  if (!changed) return outcomes;
  // Find the cases that changed state: each between two snapshots, in a fresh environment.
  return inEnv(t, impl, async (e, ctx) => {
    const out: Outcome[] = [];
    for (const c of cases) {
      const before = await snapshot(e.node, e.pod, e.dataDir);
      const o = await runCase(c, e, ctx);
      const d = diff(before, await snapshot(e.node, e.pod, e.dataDir));
      out.push(d.length === 0 ? o : { ...o, ok: false, problems: [...o.problems, `state changed: ${d.slice(0, 8).join(' | ')}`] });
    }
    return out;
  });
}
