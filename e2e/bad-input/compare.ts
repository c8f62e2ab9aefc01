// node --import tsx e2e/bad-input/compare.ts OURS.json OTHER.json
// A markdown table, per plugin and case class, of the cases the other implementation fails
// and ours passes (both runs made by `npm run badinput -- --out FILE` with the same seed).
import { readFileSync } from 'node:fs';
import type { Outcome } from './runner.ts';

interface Run {
  seed: number;
  pluginDir: string;
  /** plugins whose CHECK of a valid config failed (a --lenient-check run) */
  controlNotes?: Record<string, string>;
  outcomes: Outcome[];
}

const [oursFile, otherFile] = process.argv.slice(2);
if (!oursFile || !otherFile) throw new Error('usage: compare.ts OURS.json OTHER.json');
const ours = JSON.parse(readFileSync(oursFile, 'utf8')) as Run;
const other = JSON.parse(readFileSync(otherFile, 'utf8')) as Run;
const mine = new Map(ours.outcomes.map((o) => [o.id, o]));

/** The kind of failure, without the case's own values: "accepted (exit 0)", "code 999 instead of 7". */
function kind(o: Outcome): string {
  const p = o.problems.join('; ');
  if (/state changed/.test(p)) return `changed state (${o.answer})`;
  if (/stack trace|crash/.test(p)) return 'crash/stack trace';
  if (/did not return/.test(p)) return 'hung';
  if (o.answer === 'exit 0') return 'accepted (exit 0)';
  const want = /expected code ([\d or]+)/.exec(p)?.[1];
  if (want) return `${o.answer} instead of ${want}`;
  if (/expected success/.test(p)) return `failed (${o.answer}) where the spec wants success`;
  return o.answer;
}

interface Row {
  total: number;
  otherFails: number;
  oursFails: number;
  kinds: Map<string, number>;
  example?: string;
}
const rows = new Map<string, Row>();
for (const o of other.outcomes) {
  const key = `${o.plugin} | ${o.class}`;
  const r: Row = rows.get(key) ?? { total: 0, otherFails: 0, oursFails: 0, kinds: new Map<string, number>() };
  r.total++;
  const m = mine.get(o.id);
  if (m && !m.ok) r.oursFails++;
  if (!o.ok && m?.ok) {
    r.otherFails++;
    const k = kind(o);
    r.kinds.set(k, (r.kinds.get(k) ?? 0) + 1);
    r.example ??= o.id.split(':').slice(3).join(':');
  }
  rows.set(key, r);
}

const lines = [
  `Seed ${other.seed}; ours: ${ours.pluginDir}, other: ${other.pluginDir}.`,
  '',
  '| plugin | case class | cases | other fails, ours passes | how the other fails | example |',
  '|---|---|---:|---:|---|---|',
];
for (const [key, r] of [...rows].sort()) {
  if (r.otherFails === 0) continue;
  const kinds = [...r.kinds]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${n}× ${k}`)
    .join('; ');
  lines.push(`| ${key} | ${r.total} | ${r.otherFails} | ${kinds} | \`${(r.example ?? '').slice(0, 60).replace(/\|/g, '\\|')}\` |`);
}
// Per plugin, over all classes.
lines.push('', '| plugin | cases | other fails, ours passes | other passes, ours fails |', '|---|---:|---:|---:|');
const plugins = [...new Set(other.outcomes.map((o) => o.plugin))].sort();
for (const p of plugins) {
  const mineOf = other.outcomes.filter((o) => o.plugin === p).map((o) => [o, mine.get(o.id)] as const);
  const otherOnly = mineOf.filter(([o, m]) => !o.ok && m?.ok).length;
  const oursOnly = mineOf.filter(([o, m]) => o.ok && m && !m.ok).length;
  lines.push(`| ${p} | ${mineOf.length} | ${otherOnly} | ${oursOnly} |`);
}
const otherTotal = other.outcomes.filter((o) => !o.ok).length;
const oursTotal = ours.outcomes.filter((o) => !o.ok).length;
lines.push(
  '',
  `Totals: other ${other.outcomes.length - otherTotal} passed, ${otherTotal} failed; ours ${ours.outcomes.length - oursTotal} passed, ${oursTotal} failed.`,
);
for (const [plugin, note] of Object.entries(other.controlNotes ?? {})) {
  lines.push(
    '',
    `Note, ${plugin}: the other's CHECK of a valid config failed, so its cases ran with --lenient-check: ${note.replace(/\s+/g, ' ').slice(0, 300)}`,
  );
}
console.log(lines.join('\n'));
