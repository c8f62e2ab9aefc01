// npm run bench: our plugins beside Debian's Go plugins (/usr/lib/cni) on the same work in one
// run, rounds alternating between them, every program in a clean environment (env -i style).
// Sections: each plugin's ADD and DEL, then the Kubernetes chain through cnitool and cni-run,
// then our packaged forms (the bundles and the Bun binary) beside Go, with 40 pods at once (bench/forms.ts).
// Prints a Markdown table of medians and ratios, issue 10's targets, our plugins' phase times
// (CNI_TIMING), and writes all of it to bench/results/latest.json.
//
//   npm run bench [-- --quick] [--runs N] [--only bandwidth,bridge,firewall,loopback,portmap,ptp,tuning,chain,forms]
//                 [--reference DIR]   (another build of ours in the Go column: an A/B of a change)
//                 [--form LABEL=DIR]  (the forms section: one more build beside the bundles and the Bun binary)
//                 [--ours DIR]        (our plugins from DIR instead of the bundles, e.g. dist/bun/bin;
//                                      not the cni-run and forms sections, which name their builds)
//
// As root (every case lives in throwaway network namespaces); needs `npm run build` and cnitool
// (scripts/dev/prereqs.sh builds it into .cache/). About 5 minutes on 2 cores; --quick about 2.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { benchChain } from './chain.ts';
import { benchForms, bunTargets, formsTable } from './forms.ts';
import { cniRunKind } from './cni-run.ts';
import { GO_DIR, OURS_DIR, PhaseLog, ROOT, setOurs, setReference, type Row, type SectionOptions } from './harness.ts';
import { PLUGIN_NAMES, pluginEntry } from '../plugins/registry.ts';
import { load, machine, phasesTable, rowsTable, targets, targetsTable, writeJson, type Report } from './report.ts';

type Section = (o: SectionOptions) => Promise<Row[]>;

/** A plugin's section: the module plugins/registry.ts names (`bench`), which exports benchSection. */
const pluginSection =
  (module: string): Section =>
  async (o) => {
    const m = (await import(pathToFileURL(join(ROOT, module)).href)) as { benchSection?: Section };
    if (typeof m.benchSection !== 'function') throw new Error(`${module} exports no benchSection`);
    return m.benchSection(o);
  };

const SECTIONS: Record<string, Section> = {
  ...Object.fromEntries(PLUGIN_NAMES.flatMap((p) => (pluginEntry(p).bench === undefined ? [] : [[p, pluginSection(pluginEntry(p).bench as string)]]))),
  chain: benchChain,
  forms: benchForms,
};

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results', 'latest.json') },
    reference: { type: 'string' },
    ours: { type: 'string' },
    form: { type: 'string', multiple: true },
  },
});
const quick = values.quick === true;
const runs = Number(values.runs ?? (quick ? 5 : 15));
const only = values.only?.split(',') ?? Object.keys(SECTIONS);
for (const s of only) if (!(s in SECTIONS)) throw new Error(`unknown section ${s} (known: ${Object.keys(SECTIONS).join(', ')})`);

if (values.reference !== undefined) setReference(values.reference);
if (values.ours !== undefined) setOurs(resolve(values.ours));
if (process.getuid?.() !== 0) throw new Error('the bench needs root: it makes network namespaces');
// Plugins newer than Debian's Go build (1.1.1): their sections time ours alone.
const NO_GO_REFERENCE = new Set(['dummy', 'tap']);
for (const p of PLUGIN_NAMES) {
  if (!existsSync(join(OURS_DIR, p))) throw new Error(`build first: npm run build (${join(OURS_DIR, p)} is missing)`);
  if (!existsSync(join(GO_DIR, p)) && !NO_GO_REFERENCE.has(p))
    throw new Error(`the Go reference plugins are missing: ${join(GO_DIR, p)} (apt-get install containernetworking-plugins)`);
}

const phases = new PhaseLog();
const extraForms = (values.form ?? []).map((spec) => {
  const [label = '', dir = ''] = spec.split('=');
  if (!/^[\w.-]+$/.test(label) || dir === '') throw new Error(`--form LABEL=DIR, not ${spec}`);
  return { label, dir: resolve(dir) };
});
const options: SectionOptions = { runs, quick, phases, tag: String(process.pid), forms: extraForms };
const loadBefore = load();
const started = Date.now();
const rows: Row[] = [];
for (const name of only) {
  const t0 = Date.now();
  process.stderr.write(`bench: ${name}…`);
  rows.push(...(await (SECTIONS[name] as Section)(options)));
  process.stderr.write(` ${((Date.now() - t0) / 1000).toFixed(0)} s (load ${load()})\n`);
}

const report: Report = {
  date: new Date().toISOString(),
  machine: machine(),
  loadBefore,
  loadAfter: load(),
  options: { runs, quick, sections: only, reference: GO_DIR, ours: OURS_DIR, seconds: Math.round((Date.now() - started) / 1000) },
  cniRun: cniRunKind(),
  rows,
  targets: [...targets(rows), ...bunTargets(rows)],
  phases: phases.medians(),
};
const m = report.machine;
console.log(`\n${m.cpu}, ${m.cores} cores, Linux ${m.kernel}, Node ${m.node}; Go: ${m.goPlugins}, ${m.cnitool}`);
console.log(`load average (1, 5, 15 min) before: ${report.loadBefore}, after: ${report.loadAfter}; cni-run: ${report.cniRun}\n`);
console.log(rowsTable(rows));
const forms = formsTable(rows);
if (forms !== '') console.log(`\nthe forms side by side\n\n${forms}`);
if (report.targets.length > 0) console.log(`\n${targetsTable(report.targets)}`);
console.log(`\nour plugins' phases (CNI_TIMING=1, medians in ms; startup: process start → dispatcher)\n\n${phasesTable(report.phases)}`);
writeJson(values.out, report);
console.log(`\nwritten: ${values.out}`);
