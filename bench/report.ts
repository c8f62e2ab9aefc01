// The bench's output: one Markdown table of medians and ratios (the README's Benchmark section
// is a copy of it), the targets of issue 10 met or missed, our plugins' phase times from
// CNI_TIMING, and the same as JSON.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { dirname } from 'node:path';
import type { Row } from './harness.ts';
import { PHASES } from '../lib/cni-spec/timing.ts';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly kernel: string;
  readonly node: string;
  readonly goPlugins: string;
  readonly cnitool: string;
}

export function machine(): Machine {
  const pkg = (name: string) => spawnSync('dpkg-query', ['-W', '-f=${Version}', name], { encoding: 'utf8' }).stdout || 'unknown';
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    kernel: release(),
    node: process.version,
    goPlugins: `containernetworking-plugins ${pkg('containernetworking-plugins')} (Debian)`,
    cnitool: `cnitool from golang-github-appc-cni ${pkg('golang-github-appc-cni-dev')}`,
  };
}

export const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

interface Target {
  readonly what: string;
  readonly value: number;
  readonly limit: number;
}

/** Issue 10's targets, from the cnitool rows. */
export function targets(rows: readonly Row[]): Target[] {
  const row = (name: string) => rows.find((r) => r.section === 'chain' && r.name === name);
  const ratio = (name: string) => {
    const r = row(name);
    return r?.go ? r.ours / r.go : Number.NaN;
  };
  const scale = row('ADD with 100 pods ÷ ADD with none');
  return [
    { what: 'chain ADD ≤ 2.5 × Go (cnitool)', value: ratio('ADD via cnitool'), limit: 2.5 },
    { what: 'chain CHECK ≤ 3 × Go (cnitool)', value: ratio('CHECK via cnitool'), limit: 3 },
    { what: 'chain DEL ≤ 1.0 × Go (cnitool)', value: ratio('DEL via cnitool'), limit: 1 },
    { what: 'chain ADD with 100 pods ≤ 1.1 × with none', value: scale?.ours ?? Number.NaN, limit: 1.1 },
  ].filter((t) => !Number.isNaN(t.value));
}

const num = (x: number | undefined, unit: Row['unit']) => {
  if (x === undefined || Number.isNaN(x)) return '–';
  if (unit === '×') return `${x.toFixed(2)} ×`;
  if (unit === 'µs') return `${x.toFixed(0)} µs`;
  if (unit === 'MB') return `${x.toFixed(0)} MB`;
  return `${x.toFixed(1)}`;
};

function table(header: readonly string[], body: readonly (readonly string[])[], right: ReadonlySet<number>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => (right.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (right.has(i) ? `${'-'.repeat(Math.max(1, w - 1))}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** Wall time (medians) with its ratio, then CPU time (means, the tree of processes: less moved by the machine's load). */
export function rowsTable(rows: readonly Row[]): string {
  const cpu = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '' : x.toFixed(0));
  const body = rows.map((r) => [
    r.section,
    r.name,
    num(r.go, r.unit),
    num(r.ours, r.unit),
    r.go && r.unit !== '×' ? `${(r.ours / r.go).toFixed(2)}` : '',
    cpu(r.goCpu),
    cpu(r.oursCpu),
    r.note ?? '',
  ]);
  return table(['', 'wall ms, median', 'Go', 'ours', 'ours/Go', 'CPU ms Go', 'CPU ms ours', 'note'], body, new Set([2, 3, 4, 5, 6]));
}

export function targetsTable(ts: readonly Target[]): string {
  return table(
    ['target', 'measured', 'met'],
    ts.map((t) => [t.what, `${t.value.toFixed(2)}`, t.value <= t.limit ? 'yes' : 'no']),
    new Set([1]),
  );
}

export function phasesTable(phases: Record<string, Record<string, number>>): string {
  const cols = ['startup', ...PHASES, 'other', 'total'];
  const body = Object.keys(phases)
    .sort()
    .map((k) => [k, String(phases[k]?.['n'] ?? 0), ...cols.map((c) => (phases[k]?.[c] ?? 0).toFixed(1))]);
  return table(['our plugin, verb', 'n', ...cols], body, new Set(cols.map((_, i) => i + 2).concat([1])));
}

export interface Report {
  readonly date: string;
  readonly machine: Machine;
  readonly loadBefore: string;
  readonly loadAfter: string;
  readonly options: Record<string, unknown>;
  readonly cniRun: string;
  readonly rows: readonly Row[];
  readonly targets: readonly Target[];
  readonly phases: Record<string, Record<string, number>>;
}

export function writeJson(file: string, report: Report): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

export function readJson(file: string): Report {
  return JSON.parse(readFileSync(file, 'utf8')) as Report;
}
