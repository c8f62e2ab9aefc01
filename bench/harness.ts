// What every bench section shares: throwaway netns, a timer agent inside each "node" netns,
// the clean environment plugins run in, medians, and the CNI_TIMING lines of our plugins.
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseTiming } from '../lib/cni-spec/timing.ts';
import { binaryBeside } from '../test-support/bun-layout.ts';
import { starterEnv } from '../runtime/starter-env.ts';

export const ROOT = resolve(import.meta.dirname, '..');
/** Our plugins: the bundles, or (--ours DIR) another form, e.g. dist/bun/bin. */
export let OURS_DIR = join(ROOT, 'dist', 'bin');
export function setOurs(dir: string): void {
  OURS_DIR = dir;
}
/** The reference: Debian's Go plugins, or (--reference DIR) another build of ours, for an A/B of a change. */
export let GO_DIR = '/usr/lib/cni';
export function setReference(dir: string): void {
  GO_DIR = dir;
}
export const CNITOOL = process.env['CNITOOL'] ?? join(ROOT, '.cache', 'cnitool');

/**
 * The whole environment of every timed program (env -i style): no NODE_OPTIONS, no
 * NODE_EXTRA_CA_CERTS (each adds to every Node start), nothing of the shell the bench runs in.
 * CNI_TIMING=1 for both implementations (the Go plugins ignore it): our plugins then report
 * their phases on stderr, which costs microseconds.
 */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', CNI_TIMING: '1', ...extra };
}

/** Runs a setup command (not timed); throws with its stderr when it fails. */
export function sh(cmd: string, args: readonly string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

export function addNetns(name: string): string {
  sh('ip', ['netns', 'add', name]);
  return `/run/netns/${name}`;
}

export function delNetns(name: string): void {
  spawnSync('ip', ['netns', 'del', name]);
}

export interface RunRequest {
  readonly cmd: string;
  readonly args?: readonly string[];
  readonly env: Record<string, string>;
  readonly input?: string;
}

export interface RunResult {
  readonly ms: number;
  /** CPU time (user + sys) of the program and its children, in 10 ms steps: average many */
  readonly cpuMs: number;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly error?: string;
}

/** A timer process inside a netns (bench/agent.ts): runs programs there and times them. */
export class Agent {
  readonly #child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #lines: AsyncIterator<string>;
  readonly #rl: Interface;

  constructor(netns: string) {
    const node = process.execPath;
    this.#child = spawn('ip', ['netns', 'exec', netns, node, '--import', 'tsx', join(ROOT, 'bench', 'agent.ts')], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
    });
    this.#rl = createInterface({ input: this.#child.stdout });
    this.#lines = this.#rl[Symbol.asyncIterator]();
  }

  /** Runs one program to completion inside the netns; resolves with its wall time and output. */
  async run(r: RunRequest): Promise<RunResult> {
    this.#child.stdin.write(`${JSON.stringify({ cmd: r.cmd, args: r.args ?? [], env: r.env, input: r.input ?? '' })}\n`);
    const next = await this.#lines.next();
    if (next.done) throw new Error('bench agent exited');
    return JSON.parse(next.value) as RunResult;
  }

  /** Starts every program at once, each in the cgroup whose procs files are given; resolves when all have exited. */
  async burst(rs: readonly RunRequest[], procs: readonly string[]): Promise<{ ms: number; results: { status: number | null; stderr: string }[] }> {
    const req = rs.map((r) => ({ cmd: r.cmd, args: r.args ?? [], env: r.env, input: r.input ?? '' }));
    this.#child.stdin.write(`${JSON.stringify({ burst: req, procs })}\n`);
    const next = await this.#lines.next();
    if (next.done) throw new Error('bench agent exited');
    return JSON.parse(next.value) as { ms: number; results: { status: number | null; stderr: string }[] };
  }

  /** As run(), but a non-zero exit is an error naming `what`. */
  async must(what: string, r: RunRequest): Promise<RunResult> {
    const res = await this.run(r);
    if (res.status !== 0) throw new Error(`${what} failed (${res.status ?? res.error}): ${res.stdout} ${res.stderr}`);
    return res;
  }

  close(): void {
    this.#rl.close();
    this.#child.stdin.end();
  }
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Each run's wall and CPU time, by a key such as "ours ADD": medians of wall, means of CPU. */
export class Samples {
  readonly #wall = new Map<string, number[]>();
  readonly #cpu = new Map<string, number[]>();

  add(key: string, r: { readonly ms: number; readonly cpuMs: number }): void {
    this.#wall.set(key, [...(this.#wall.get(key) ?? []), r.ms]);
    this.#cpu.set(key, [...(this.#cpu.get(key) ?? []), r.cpuMs]);
  }

  median(key: string): number {
    return median(this.#wall.get(key) ?? []);
  }

  cpu(key: string): number {
    return mean(this.#cpu.get(key) ?? []);
  }

  count(key: string): number {
    return this.#wall.get(key)?.length ?? 0;
  }
}

/** Medians of the CNI_TIMING lines seen, per plugin and verb. */
export class PhaseLog {
  readonly #lines = new Map<string, Map<string, number[]>>();

  /** Takes every cni-timing line out of a program's stderr; `suffix` tells cases apart (" @100"). */
  collect(stderr: string, suffix = ''): void {
    for (const line of stderr.split('\n')) {
      const t = parseTiming(line);
      if (!t) continue;
      const key = `${t.plugin} ${t.verb}${suffix}`;
      let fields = this.#lines.get(key);
      if (!fields) this.#lines.set(key, (fields = new Map<string, number[]>()));
      for (const [k, v] of Object.entries(t.ms)) fields.set(k, [...(fields.get(k) ?? []), v]);
    }
  }

  /** { "bridge ADD": { n, startup: median, ... } } */
  medians(): Record<string, Record<string, number>> {
    const out: Record<string, Record<string, number>> = {};
    for (const [key, fields] of this.#lines) {
      const row: Record<string, number> = { n: fields.get('total')?.length ?? 0 };
      for (const [k, xs] of fields) row[k] = median(xs);
      out[key] = row;
    }
    return out;
  }
}

/** One measured case: our median and the Go reference's in the same run. */
export interface Row {
  readonly section: string;
  readonly name: string;
  readonly ours: number;
  readonly go?: number;
  /** samples behind each median */
  readonly n: number;
  /** mean CPU time (user + sys) of the program and its children, ms */
  readonly oursCpu?: number;
  readonly goCpu?: number;
  /** 'ms' unless said */
  readonly unit?: 'ms' | 'µs' | '×' | 'MB';
  readonly note?: string;
}

export interface SectionOptions {
  readonly runs: number;
  /** more builds for the forms section, by label (--form LABEL=DIR) */
  readonly forms?: readonly { readonly label: string; readonly dir: string }[];
  readonly quick: boolean;
  readonly phases: PhaseLog;
  readonly tag: string;
}

/** Order of the subjects in round `i`: alternating, so drifting load hits all alike. */
export function alternate<T>(xs: readonly T[], i: number): readonly T[] {
  return i % 2 === 0 ? xs : [...xs].reverse();
}

/** What one round of addDelRounds runs for a subject on its fresh pod. */
export interface PodCase {
  readonly file: string;
  readonly input: string;
  /** CNI_PATH (default: none there) */
  readonly cniPath?: string;
  /** untimed set-up in the pod before ADD (a veth to tune or shape) */
  readonly prepare?: () => void;
}

/**
 * The plugin sections' loop: one warm-up and `o.runs` rounds; in each, every subject (order
 * alternating) gets a fresh pod netns, its ADD then its DEL timed as "<label> ADD" and
 * "<label> DEL", our phases collected. `between` runs once per round (a floor to time beside).
 */
export async function addDelRounds<S extends { readonly label: string }>(
  o: SectionOptions,
  agent: Agent,
  subjects: readonly S[],
  each: { readonly pluginCase: (s: S, pod: string, netns: string) => PodCase; readonly between?: (samples: Samples, timed: boolean) => Promise<void> },
): Promise<Samples> {
  const { pluginCase, between } = each;
  const samples = new Samples();
  let seq = 0;
  for (let i = -1; i < o.runs; i++) {
    for (const s of alternate(subjects, i)) {
      const pod = `cnits-bench-pod-${o.tag}-${seq++}`;
      const netns = addNetns(pod);
      try {
        const c = pluginCase(s, pod, netns);
        c.prepare?.();
        const env = (command: string) =>
          cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: pod, CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: c.cniPath ?? '/nonexistent' });
        const add = await agent.must(`${s.label} ADD`, { cmd: c.file, env: env('ADD'), input: c.input });
        const del = await agent.must(`${s.label} DEL`, { cmd: c.file, env: env('DEL'), input: c.input });
        if (s.label === 'ours' && i >= 0) o.phases.collect(add.stderr + del.stderr, ' (alone)');
        if (i >= 0) {
          samples.add(`${s.label} ADD`, add);
          samples.add(`${s.label} DEL`, del);
        }
      } finally {
        delNetns(pod);
      }
    }
    await between?.(samples, i >= 0);
  }
  return samples;
}

/**
 * addDelRounds' `between` for a section with a floor (floorRows): each subject's VERSION, timed
 * once a round, as "<label> VERSION".
 */
export function timeVersions(
  agent: Agent,
  subjects: readonly { readonly label: string; readonly file: string }[],
): (samples: Samples, timed: boolean) => Promise<void> {
  return async (samples, timed) => {
    for (const s of subjects) {
      const v = await timeVersion(agent, s.label, s.file);
      if (timed) samples.add(`${s.label} VERSION`, v);
    }
  };
}

/** A plugin's VERSION: its process floor (the runtime's start and our dispatch, no verb work). */
export async function timeVersion(agent: Agent, label: string, file: string): Promise<RunResult> {
  const floor = floorFile(file);
  // The binary behind a starter runs with the settings the starter gives the program's ADD.
  const settings = floor === file ? {} : starterEnv(basename(file), 'ADD');
  return agent.must(`${label} VERSION`, { cmd: floor, env: cleanEnv({ ...settings, CNI_COMMAND: 'VERSION' }), input: '{"cniVersion":"1.0.0"}' });
}

const floorLinks = new Map<string, string>();

/**
 * The file whose VERSION is `file`'s floor: `file` itself, except for a link of the Bun form's
 * starter (runtime/bun-starter.c), which answers VERSION without starting the binary. Its verbs
 * start the `cni-ts` beside it, so that binary's own VERSION is the floor: run through a
 * symlink named like the plugin (the binary dispatches on the name), with the environment the
 * starter gives it (runtime/starter-env.ts).
 */
function floorFile(file: string): string {
  const binary = binaryBeside(file);
  if (binary === undefined) return file;
  let link = floorLinks.get(file);
  if (link === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'cnits-bench-floor-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    link = join(dir, basename(file));
    symlinkSync(binary, link);
    floorLinks.set(file, link);
  }
  return link;
}

/**
 * The VERSION row, and for each verb the work above that floor: the verb's median less
 * VERSION's median, for ours (samples `${ours} VERB`) and Go's (`go VERB`).
 */
export function floorRows(
  samples: Samples,
  { section, verbs, n, ours = 'ours', suffix = '' }: { section: string; verbs: readonly string[]; n: number; ours?: string; suffix?: string },
): Row[] {
  const above = (label: string, verb: string) => samples.median(`${label} ${verb}`) - samples.median(`${label} VERSION`);
  return [
    {
      section,
      name: `VERSION, the process floor (ours: the binary's, with the starter's settings), same rounds${suffix}`,
      ours: samples.median(`${ours} VERSION`),
      go: samples.median('go VERSION'),
      n,
    },
    ...verbs.map((verb) => ({ section, name: `${verb} above the floor (${verb} − VERSION)${suffix}`, ours: above(ours, verb), go: above('go', verb), n })),
  ];
}

/** The rows of a section that times ADD and DEL beside a VERSION floor: each verb's, then floorRows'. */
export function addDelFloorRows(samples: Samples, { section, add, del, n }: { section: string; add: string; del: string; n: number }): Row[] {
  return [
    { section, name: add, ...verbFigures(samples, 'ADD', n) },
    { section, name: del, ...verbFigures(samples, 'DEL', n) },
    ...floorRows(samples, { section, verbs: ['ADD', 'DEL'], n }),
  ];
}

/** A row's figures for `verb`: ours and Go's medians and mean CPU. */
export function verbFigures(samples: Samples, verb: string, n: number): Pick<Row, 'ours' | 'go' | 'oursCpu' | 'goCpu' | 'n'> {
  return { ours: samples.median(`ours ${verb}`), go: samples.median(`go ${verb}`), oursCpu: samples.cpu(`ours ${verb}`), goCpu: samples.cpu(`go ${verb}`), n };
}
