// The Kubernetes node's chain (conf-examples/k8s-node.conflist: bridge + host-local → portmap →
// bandwidth, with a hostPort and 10 Mbit/s shaping each way as containerd passes them), ADD,
// CHECK and DEL of a fresh pod, run by a runtime (the reference's cnitool and our cni-run) over
// our plugins and over the Go ones; then ADD with 20 and 100 pods already attached to the node.
// Each implementation has its own node netns (bridge, rules, ifbs) and host-local store.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cniRunInvocation, type Invocation } from './cni-run.ts';
import { addNetns, Agent, alternate, CNITOOL, cleanEnv, delNetns, GO_DIR, OURS_DIR, ROOT, Samples, type Row, type SectionOptions } from './harness.ts';

export type Verb = 'add' | 'check' | 'del';
export const VERBS: readonly Verb[] = ['add', 'check', 'del'];
const RESULTS_CACHE = '/var/lib/cni/results';
/** pods already attached to the node when a pod is measured */
const LEVELS = [0, 20, 100] as const;

export interface Impl {
  /** 'go', 'ours', or a form of ours (bench/forms.ts) */
  readonly label: string;
  readonly dir: string;
  readonly level: number;
  readonly node: string;
  readonly agent: Agent;
  readonly confDir: string;
  readonly dataDir: string;
  /** pods attached and left there (the 20/100 cases) */
  readonly preloaded: string[];
}

export interface Runtime {
  readonly label: string;
  readonly invoke: (verb: Verb, impl: Impl, netns: string, caps: string) => Invocation;
}

/** containerd's capability args for hostPort 8080→80 and kubernetes.io/{in,e}gress-bandwidth: 10M. */
export function capArgs(hostPort: number): string {
  const burst = 4294967295; // containerd's "no burst given"
  return JSON.stringify({
    portMappings: [{ hostPort, containerPort: 80, protocol: 'tcp' }],
    bandwidth: { ingressRate: 10_000_000, ingressBurst: burst, egressRate: 10_000_000, egressBurst: burst },
  });
}

export const cnitool: Runtime = {
  label: 'cnitool',
  invoke: (verb, impl, netns, caps) => ({
    cmd: CNITOOL,
    args: [verb, network(impl), netns],
    env: { NETCONFPATH: impl.confDir, CNI_PATH: impl.dir, CAP_ARGS: caps },
  }),
};

function network(impl: Impl): string {
  return (JSON.parse(readFileSync(join(impl.confDir, 'k8s.conflist'), 'utf8')) as { name: string }).name;
}

export function makeImpl(label: string, dir: string, tag: string, level: number): Impl {
  const node = `cnits-bench-chain-${tag}-${label}-${level}`;
  addNetns(node);
  const confDir = mkdtempSync(join(tmpdir(), `cnits-bench-conf-${label}-`));
  const dataDir = mkdtempSync(join(tmpdir(), `cnits-bench-ipam-${label}-`));
  const list = JSON.parse(readFileSync(join(ROOT, 'conf-examples', 'k8s-node.conflist'), 'utf8')) as { name: string; plugins: { ipam?: object }[] };
  list.name = `cnits-bench-${tag}-${label}-${level}`;
  const bridge = list.plugins[0];
  if (bridge?.ipam) bridge.ipam = { ...bridge.ipam, dataDir };
  writeFileSync(join(confDir, 'k8s.conflist'), JSON.stringify(list, null, 2));
  return { label, dir, level, node, agent: new Agent(node), confDir, dataDir, preloaded: [] };
}

export function dropImpl(impl: Impl): void {
  impl.agent.close();
  delNetns(impl.node);
  for (const p of impl.preloaded) delNetns(p);
  // The runtimes' result cache of the pods left attached (their netns and node are gone now).
  const prefix = `${network(impl)}-`;
  if (existsSync(RESULTS_CACHE)) for (const f of readdirSync(RESULTS_CACHE)) if (f.startsWith(prefix)) rmSync(join(RESULTS_CACHE, f), { force: true });
  rmSync(impl.confDir, { recursive: true, force: true });
  rmSync(impl.dataDir, { recursive: true, force: true });
}

export interface Ctx {
  readonly o: SectionOptions;
  readonly samples: Samples;
  readonly goCheckFailure: { text?: string };
  seq: number;
}

/** What one measured cycle runs: which runtime over which plugins, which verbs. */
export interface Subject {
  readonly rt: Runtime;
  readonly impl: Impl;
  readonly verbs: readonly Verb[];
}

/** A fresh pod through the subject's verbs (ADD, CHECK, DEL or ADD, DEL), each timed under key(verb). */
export async function cycle(ctx: Ctx, { rt, impl, verbs }: Subject, key: (verb: Verb) => string): Promise<void> {
  const pod = `cnits-bench-pod-${ctx.o.tag}-${ctx.seq++}`;
  const netns = addNetns(pod);
  try {
    for (const verb of verbs) {
      const inv = rt.invoke(verb, impl, netns, capArgs(8080));
      const r = await impl.agent.run({ cmd: inv.cmd, args: inv.args, env: cleanEnv(inv.env) });
      if (impl.label !== 'go')
        ctx.o.phases.collect(r.stderr, `${impl.level === 0 ? '' : `, ${impl.level} pods`}${impl.label === 'ours' ? '' : ` [${impl.label}]`}`);
      if (r.status !== 0) {
        // The Go portmap v1.1.1 CHECK demands ip6tables rules of an IPv4-only pod and fails:
        // its time is the time to that failure (bandwidth's CHECK never runs).
        if (impl.label === 'go' && verb === 'check') ctx.goCheckFailure.text ??= firstLine(r.stderr || r.stdout);
        else throw new Error(`${rt.label} ${verb} over ${impl.label} failed: ${r.stdout} ${r.stderr}`);
      }
      ctx.samples.add(key(verb), r);
    }
  } finally {
    delNetns(pod);
  }
}

const firstLine = (s: string) => {
  const line = s.trim().split('\n')[0] ?? '';
  // The known one, without its chain's hash: the note is a table cell.
  return /could not check ipv6 dnat/.test(line) ? 'portmap v1.1.1 wants ip6tables rules of an IPv4 pod; timed to that failure' : line.slice(0, 160);
};

/** Attaches pods until `count` are there, each with its own hostPort (not timed). */
export async function preload(ctx: Ctx, impl: Impl, count: number): Promise<void> {
  while (impl.preloaded.length < count) {
    const i = impl.preloaded.length;
    const pod = `cnits-bench-pre-${ctx.o.tag}-${impl.label}-${impl.level}-${i}`;
    const netns = addNetns(pod);
    impl.preloaded.push(pod);
    const inv = cnitool.invoke('add', impl, netns, capArgs(30000 + i));
    await impl.agent.must(`preload ${impl.label} pod ${i}`, { cmd: inv.cmd, args: inv.args, env: cleanEnv(inv.env) });
  }
}

export async function benchChain(o: SectionOptions): Promise<Row[]> {
  if (!existsSync(CNITOOL)) throw new Error(`cnitool not built: ${CNITOOL} (bash scripts/dev/prereqs.sh builds it)`);
  const cniRun = await cniRunInvocation();
  const runtimes: Runtime[] = [cnitool, { label: 'cni-run', invoke: (verb, impl, netns, caps) => cniRun(verb, { ...impl, netns, caps }) }];
  const impls: Impl[] = [];
  const ctx: Ctx = { o, samples: new Samples(), goCheckFailure: {}, seq: 0 };
  try {
    // One node per implementation and number of pods already attached, so that every round
    // measures all of them: ADD with 100 pods is compared with ADD with none under the same load.
    for (const level of LEVELS) impls.push(makeImpl('go', GO_DIR, o.tag, level), makeImpl('ours', OURS_DIR, o.tag, level));
    for (const impl of impls) await preload(ctx, impl, impl.level);
    const subjects: Subject[] = impls.flatMap((impl) =>
      impl.level === 0 ? runtimes.map((rt) => ({ rt, impl, verbs: VERBS })) : [{ rt: cnitool, impl, verbs: ['add', 'del'] as readonly Verb[] }],
    );
    // Warm-up: the bridge exists, page cache and our code cache are warm.
    for (const s of subjects) await cycle(ctx, s, () => 'warm-up');
    for (let i = 0; i < o.runs; i++) {
      for (const s of alternate(subjects, i)) await cycle(ctx, s, (v) => `${s.rt.label} ${s.impl.label} ${v} @${s.impl.level}`);
    }
  } finally {
    for (const impl of impls) dropImpl(impl);
  }
  return rows(ctx, runtimes);
}

function rows(ctx: Ctx, runtimes: readonly Runtime[]): Row[] {
  const m = (key: string) => ctx.samples.median(key);
  // `key` with {} for the implementation
  const cpu = (key: string) => ({ oursCpu: ctx.samples.cpu(key.replace('{}', 'ours')), goCpu: ctx.samples.cpu(key.replace('{}', 'go')) });
  const n = ctx.samples.count('cnitool ours add @0');
  const out: Row[] = [];
  for (const rt of runtimes) {
    for (const verb of VERBS) {
      const note = verb === 'check' && ctx.goCheckFailure.text ? `Go fails: ${ctx.goCheckFailure.text}` : undefined;
      out.push({
        section: 'chain',
        name: `${verb.toUpperCase()} via ${rt.label}`,
        ours: m(`${rt.label} ours ${verb} @0`),
        go: m(`${rt.label} go ${verb} @0`),
        ...cpu(`${rt.label} {} ${verb} @0`),
        n,
        ...(note && { note }),
      });
    }
  }
  for (const level of [20, 100]) {
    for (const verb of ['add', 'del'] as const) {
      out.push({
        section: 'chain',
        name: `${verb.toUpperCase()} via cnitool, ${level} pods attached`,
        ours: m(`cnitool ours ${verb} @${level}`),
        go: m(`cnitool go ${verb} @${level}`),
        ...cpu(`cnitool {} ${verb} @${level}`),
        n,
      });
    }
  }
  const scale = (impl: string) => m(`cnitool ${impl} add @100`) / m(`cnitool ${impl} add @0`);
  out.push({ section: 'chain', name: 'ADD with 100 pods ÷ ADD with none', ours: scale('ours'), go: scale('go'), n, unit: '×' });
  return out;
}
