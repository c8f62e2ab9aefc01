// Our packaged forms side by side with the Go reference, same run, rounds alternating: the
// bundles (dist/bin, run by the node's Node) and the Bun binary (dist/bun/bin); `--form
// LABEL=DIR` adds another build (an older one, or a form since retired). For each: VERSION of loopback (start-up alone), loopback ADD, the
// Kubernetes chain (conf-examples/k8s-node.conflist) ADD, CHECK and DEL of a fresh pod through
// cnitool, and a burst of 40 pods ADDed at once, each through its own cnitool, as a node
// does when a deployment lands: wall time of the whole burst, and CPU time and peak memory
// of every process in it, from a cgroup (bench/cgroup.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createBurstCgroup } from './cgroup.ts';
import { capArgs, cnitool, cycle, dropImpl, makeImpl, VERBS, type Ctx, type Impl } from './chain.ts';
import { addNetns, alternate, cleanEnv, delNetns, GO_DIR, median, ROOT, Samples, type Row, type SectionOptions } from './harness.ts';

export const BURST = 40;

interface Form {
  readonly label: string;
  readonly dir: string;
}

/** The Go reference, our two forms, then the --form extras. */
function forms(extra: readonly Form[]): Form[] {
  const ours = [
    { label: 'bundles', dir: join(ROOT, 'dist', 'bin'), build: 'build first: npm run build' },
    { label: 'Bun', dir: join(ROOT, 'dist', 'bun', 'bin'), build: 'build first: npm run build:bun' },
    ...extra.map((f) => ({ ...f, build: `--form ${f.label}=${f.dir}` })),
  ];
  for (const f of ours) if (!existsSync(join(f.dir, 'bridge'))) throw new Error(`${f.build} (${f.dir}/bridge is missing)`);
  return [{ label: 'go', dir: GO_DIR }, ...ours];
}

interface Burst {
  readonly ms: number;
  readonly cpuMs: number;
  readonly peakMb: number;
}

/** BURST pods ADDed at once on the form's node, each by its own cnitool; then all DELeted at once (not measured). */
async function burst(impl: Impl, tag: string, round: number): Promise<Burst> {
  const pods = Array.from({ length: BURST }, (_, k) => `cnits-bench-burst-${tag}-${impl.label}-${round}-${k}`);
  const group = createBurstCgroup(`cnits-bench-${tag}-${impl.label}-${round}`);
  try {
    const netnses = pods.map(addNetns);
    const invoke = (verb: 'add' | 'del') =>
      netnses.map((netns, k) => {
        const inv = cnitool.invoke(verb, impl, netns, capArgs(31000 + k));
        return { cmd: inv.cmd, args: inv.args, env: cleanEnv(inv.env) };
      });
    // The agent runs under `ip netns exec`, which mounts a sysfs of the netns without the cgroup
    // fs: its children reach our cgroup files through this process's root.
    const add = await impl.agent.burst(
      invoke('add'),
      group.procs.map((p) => `/proc/${process.pid}/root${p}`),
    );
    const cpuMs = group.cpuMs();
    const peakMb = group.peakBytes() / 1e6;
    const del = await impl.agent.burst(invoke('del'), []);
    const failed = [...add.results, ...del.results].find((r) => r.status !== 0);
    if (failed) throw new Error(`burst over ${impl.label}: a cnitool failed (${failed.status}): ${failed.stderr.slice(0, 400)}`);
    return { ms: add.ms, cpuMs, peakMb };
  } finally {
    for (const p of pods) delNetns(p);
    group.remove();
  }
}

export async function benchForms(o: SectionOptions): Promise<Row[]> {
  const all = forms(o.forms ?? []);
  const impls = all.map((f) => makeImpl(f.label, f.dir, o.tag, 0));
  const pod = `cnits-bench-forms-lo-${o.tag}`;
  const loNetns = addNetns(pod);
  const ctx: Ctx = { o, samples: new Samples(), goCheckFailure: {}, seq: 0 };
  const bursts = new Map<string, Burst[]>();
  const lo = (command: string) => cleanEnv({ CNI_COMMAND: command, CNI_CONTAINERID: 'bench', CNI_NETNS: loNetns, CNI_IFNAME: 'lo', CNI_PATH: '/nonexistent' });
  const loConf = JSON.stringify({ cniVersion: '1.0.0', name: 'bench', type: 'loopback' });
  try {
    for (const impl of impls) await cycle(ctx, { rt: cnitool, impl, verbs: VERBS }, () => 'warm-up');
    for (let i = 0; i < o.runs; i++) {
      for (const impl of alternate(impls, i)) {
        const file = join(impl.dir, 'loopback');
        // What the timer itself adds to any program (spawnSync from a Node process).
        ctx.samples.add(`${impl.label} floor`, await impl.agent.must(`${impl.label} /bin/true`, { cmd: '/bin/true', env: lo('VERSION') }));
        const version = await impl.agent.must(`${impl.label} VERSION`, { cmd: file, env: lo('VERSION') });
        ctx.samples.add(`${impl.label} version`, version);
        ctx.samples.add(`${impl.label} loopback`, await impl.agent.must(`${impl.label} loopback ADD`, { cmd: file, env: lo('ADD'), input: loConf }));
        await impl.agent.must(`${impl.label} loopback DEL`, { cmd: file, env: lo('DEL'), input: loConf });
        await cycle(ctx, { rt: cnitool, impl, verbs: VERBS }, (v) => `${impl.label} ${v}`);
      }
    }
    const rounds = o.quick ? 1 : 3;
    for (let i = 0; i < rounds; i++) {
      for (const impl of alternate(impls, i)) bursts.set(impl.label, [...(bursts.get(impl.label) ?? []), await burst(impl, o.tag, i)]);
    }
  } finally {
    for (const impl of impls) dropImpl(impl);
    delNetns(pod);
  }
  return rows(ctx, all, bursts, o.runs);
}

function rows(ctx: Ctx, all: readonly Form[], bursts: Map<string, Burst[]>, n: number): Row[] {
  const s = ctx.samples;
  const out: Row[] = [];
  const ours = all.filter((f) => f.label !== 'go');
  const wall = (what: string, key: string, note?: string) => {
    for (const f of ours) {
      out.push({
        section: 'forms',
        name: `${what} [${f.label}]`,
        ours: s.median(`${f.label} ${key}`),
        go: s.median(`go ${key}`),
        oursCpu: s.cpu(`${f.label} ${key}`),
        goCpu: s.cpu(`go ${key}`),
        n,
        ...(note && { note }),
      });
    }
  };
  wall("an empty program (/bin/true): the timer's own floor", 'floor');
  wall('VERSION of loopback', 'version');
  wall('loopback ADD', 'loopback');
  for (const verb of VERBS)
    wall(`chain ${verb.toUpperCase()} via cnitool`, verb, verb === 'check' && ctx.goCheckFailure.text ? `Go fails: ${ctx.goCheckFailure.text}` : undefined);
  const b = (label: string, pick: (x: Burst) => number) => median((bursts.get(label) ?? []).map(pick));
  const rounds = bursts.get('go')?.length ?? 0;
  for (const f of ours) {
    const burstRow = (what: string, pick: (x: Burst) => number, unit?: Row['unit']) =>
      out.push({
        section: 'forms',
        name: `${BURST} pods at once, ADD: ${what} [${f.label}]`,
        ours: b(f.label, pick),
        go: b('go', pick),
        n: rounds,
        ...(unit && { unit }),
      });
    burstRow('wall', (x) => x.ms);
    burstRow('CPU', (x) => x.cpuMs);
    burstRow('peak memory', (x) => x.peakMb, 'MB');
  }
  return out;
}

/** Issue 16's targets for the Bun form, from the forms rows. */
export function bunTargets(rows: readonly Row[]): { what: string; value: number; limit: number }[] {
  const ratio = (name: string) => {
    const r = rows.find((x) => x.section === 'forms' && x.name === `${name} [Bun]`);
    return r?.go ? r.ours / r.go : Number.NaN;
  };
  const version = rows.find((x) => x.section === 'forms' && x.name === 'VERSION of loopback [Bun]');
  const floor = rows.find((x) => x.section === 'forms' && x.name === "an empty program (/bin/true): the timer's own floor [Bun]");
  return [
    { what: 'Bun: VERSION of loopback ≤ 5 ms (above the timer’s floor)', value: (version?.ours ?? Number.NaN) - (floor?.ours ?? Number.NaN), limit: 5 },
    { what: 'Bun: loopback ADD ≤ 3 × Go', value: ratio('loopback ADD'), limit: 3 },
    { what: 'Bun: chain ADD ≤ 2.0 × Go (cnitool)', value: ratio('chain ADD via cnitool'), limit: 2 },
    { what: 'Bun: chain CHECK ≤ 3 × Go (cnitool)', value: ratio('chain CHECK via cnitool'), limit: 3 },
    { what: 'Bun: chain DEL ≤ 0.9 × Go (cnitool)', value: ratio('chain DEL via cnitool'), limit: 0.9 },
    { what: `Bun: ${BURST} pods at once, wall ≤ 1.5 × Go`, value: ratio(`${BURST} pods at once, ADD: wall`), limit: 1.5 },
    { what: `Bun: ${BURST} pods at once, CPU ≤ 1.5 × Go`, value: ratio(`${BURST} pods at once, ADD: CPU`), limit: 1.5 },
    { what: `Bun: ${BURST} pods at once, peak memory ≤ 2.5 × Go`, value: ratio(`${BURST} pods at once, ADD: peak memory`), limit: 2.5 },
  ].filter((t) => !Number.isNaN(t.value));
}

/** The forms side by side: one row per measure, one column per form, each with its ratio to Go. */
export function formsTable(rows: readonly Row[]): string {
  const forms = rows.filter((r) => r.section === 'forms');
  if (forms.length === 0) return '';
  const split = (name: string) => /^(.*) \[([^\]]+)\]$/.exec(name)?.slice(1) as [string, string] | undefined;
  const measures = [...new Set(forms.map((r) => split(r.name)?.[0] ?? r.name))];
  const labels = [...new Set(forms.map((r) => split(r.name)?.[1] ?? ''))];
  const fmt = (x: number | undefined, unit: Row['unit']) =>
    x === undefined || Number.isNaN(x) ? '–' : unit === 'MB' ? `${x.toFixed(0)} MB` : `${x.toFixed(1)} ms`;
  const body = measures.map((m) => {
    const of = (l: string) => forms.find((r) => r.name === `${m} [${l}]`);
    const first = of(labels[0] ?? '');
    return [
      m,
      fmt(first?.go, first?.unit),
      ...labels.map((l) => {
        const r = of(l);
        return r ? `${fmt(r.ours, r.unit)} (${r.go ? (r.ours / r.go).toFixed(2) : '–'} ×)` : '–';
      }),
    ];
  });
  const header = ['medians (burst: of the rounds)', 'Go', ...labels.map((l) => `${l} (÷ Go)`)];
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  return [line(header), `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`, ...body.map(line)].join('\n');
}
