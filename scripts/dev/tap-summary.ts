// Reads what `tap --reporter=tap` printed (nested TAP 14) and closes `npm test` with one line,
//
//   N passed, N failed, N skipped
//
// counted in one unit: TESTS, not assertions. A test is a test file or a t.test() that makes
// assertions of its own; it passed when all of them passed and failed when one failed (or when
// it failed as a whole, e.g. a file that crashed). A skip counts once wherever it is: a skipped
// file, t.test() or assertion. Every skip is printed with its test and reason; a skip whose
// reason is not on the allow-list (test-support/skip-reasons.ts) counts as failed, so a skip
// can never hide a missing feature, tool or executable. `--step NAME=STATUS` adds a step run
// before the tests (typecheck, lint) as one test, passed when STATUS is 0.
//
// Usage: node --import tsx scripts/dev/tap-summary.ts TAP_LOG [--step NAME=STATUS]...
import { readFileSync } from 'node:fs';
import { isAllowedSkip } from '../../test-support/skip-reasons.ts';

interface Point {
  readonly ok: boolean;
  readonly name: string;
  /** SKIP or TODO, with its reason */
  readonly directive?: { kind: 'SKIP' | 'TODO'; reason: string };
}

interface Block {
  readonly name: string;
  /** indentation level of its "# Subtest:" and closing point; its body is one level deeper */
  readonly level: number;
  readonly points: Point[];
  readonly children: Block[];
  /** the closing point, once seen */
  end?: Point;
}

const POINT = /^(not )?ok\b(?:\s+\d+)?(?:\s+-)?\s*(.*)$/;

function parsePoint(line: string): Point | undefined {
  const m = POINT.exec(line);
  if (!m) return undefined;
  const rest = (m[2] ?? '').replace(/\s+# time=[\d.]+m?s$/, '');
  const d = /^(.*?)\s*(?<!\\)#\s*(SKIP|TODO)\b\s*(.*)$/i.exec(rest);
  if (!d) return { ok: m[1] === undefined, name: rest };
  const kind = (d[2] ?? '').toUpperCase() as 'SKIP' | 'TODO';
  return { ok: m[1] === undefined, name: d[1] ?? '', directive: { kind, reason: (d[3] ?? '').trim() } };
}

/** The tree of blocks; lines that are not TAP (a test's stray output) are ignored. */
export function parseTap(text: string): { root: Block; bailedOut: boolean } {
  const root: Block = { name: '', level: -1, points: [], children: [] };
  const stack: Block[] = [root];
  let yamlIndent: number | undefined;
  let bailedOut = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s+$/, '');
    const indent = line.length - line.trimStart().length;
    const body = line.trimStart();
    if (yamlIndent !== undefined) {
      if (indent === yamlIndent && body === '...') yamlIndent = undefined;
      continue;
    }
    if (body === '---' && indent % 4 === 2) {
      yamlIndent = indent;
      continue;
    }
    if (indent % 4 !== 0 || body === '') continue;
    const level = indent / 4;
    if (body.startsWith('Bail out!')) bailedOut = true;
    const sub = /^# Subtest:\s*(.*)$/.exec(body);
    if (sub) {
      while (stack.length > 1 && (stack[stack.length - 1] as Block).level >= level) stack.pop();
      const block: Block = { name: sub[1] ?? '', level, points: [], children: [] };
      (stack[stack.length - 1] as Block).children.push(block);
      stack.push(block);
      continue;
    }
    const point = parsePoint(body);
    if (point === undefined) continue;
    // a point at a block's own level closes it; one level deeper, it belongs to its body
    while (stack.length > 1 && (stack[stack.length - 1] as Block).level > level) stack.pop();
    const top = stack[stack.length - 1] as Block;
    if (top.level === level && top.end === undefined) {
      top.end = point;
      stack.pop();
    } else {
      (stack.find((b) => b.level === level - 1) ?? root).points.push(point);
    }
  }
  return { root, bailedOut };
}

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
  skips: { test: string; reason: string; allowed: boolean }[];
}

function skipOf(t: Tally, test: string, d: { kind: string; reason: string }): void {
  const reason = d.kind === 'TODO' ? `todo: ${d.reason}` : d.reason;
  const allowed = d.kind === 'SKIP' && isAllowedSkip(reason);
  t.skips.push({ test, reason, allowed });
  if (allowed) t.skipped++;
  else {
    t.failed++;
    t.failures.push(`${test} (skipped for a reason not on the allow-list: ${reason || 'none given'})`);
  }
}

/** Counts one block and its children; returns how many failures it added. */
function countBlock(t: Tally, b: Block, path: string): number {
  const before = t.failed;
  if (b.end?.directive) {
    skipOf(t, path, b.end.directive);
    return t.failed - before;
  }
  let ownPass = false;
  let ownFail = false;
  for (const p of b.points) {
    if (p.directive) skipOf(t, `${path} > ${p.name}`, p.directive);
    else if (p.ok) ownPass = true;
    else {
      ownFail = true;
      t.failures.push(`${path} > ${p.name}`);
    }
  }
  for (const c of b.children) countBlock(t, c, path === '' ? c.name : `${path} > ${c.name}`);
  if (ownFail) t.failed++;
  else if (ownPass) t.passed++;
  if (b.end !== undefined && !b.end.ok && t.failed === before) {
    t.failed++;
    t.failures.push(`${path} (failed as a whole)`);
  }
  return t.failed - before;
}

export function tally(text: string, steps: readonly [string, number][] = []): Tally {
  const t: Tally = { passed: 0, failed: 0, skipped: 0, failures: [], skips: [] };
  for (const [name, status] of steps) {
    if (status === 0) t.passed++;
    else {
      t.failed++;
      t.failures.push(`${name} (exit ${status})`);
    }
  }
  const { root, bailedOut } = parseTap(text);
  countBlock(t, root, '');
  if (bailedOut) {
    t.failed++;
    t.failures.push('tap bailed out');
  }
  if (root.children.length === 0 && root.points.length === 0) {
    t.failed++;
    t.failures.push('no test output');
  }
  return t;
}

function main(argv: string[]): number {
  const [log, ...rest] = argv;
  if (log === undefined) throw new Error('usage: tap-summary.ts TAP_LOG [--step NAME=STATUS]...');
  const steps: [string, number][] = [];
  for (let i = 0; i < rest.length; i++) {
    const m = rest[i] === '--step' ? /^([^=]+)=(\d+)$/.exec(rest[++i] ?? '') : null;
    if (!m) throw new Error(`bad argument ${rest[i]}`);
    steps.push([m[1] as string, Number(m[2])]);
  }
  const t = tally(readFileSync(log, 'utf8'), steps);
  console.log('');
  for (const s of t.skips) console.log(`${s.allowed ? 'skipped' : 'SKIP NOT ALLOWED'}: ${s.test} # ${s.reason}`);
  for (const f of t.failures) console.log(`failed: ${f}`);
  console.log(`${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
  return t.failed > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
