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
// A skip because this machine's kernel lacks a feature (a link kind, bridge VLAN filtering) is
// allowed only in a file of the kernel-lab set (`--kernel-lab e2e/kernel-lab.txt`), and only
// when the kernel lab's run of that file (top-level name "[kernel …] FILE") is in the log and
// passed; inside the lab such a skip is a failure: its kernel has every one of these features.
//
// Usage: node --import tsx scripts/dev/tap-summary.ts TAP_LOG [--step NAME=STATUS]... [--kernel-lab LIST]
import { readFileSync } from 'node:fs';
import { isAllowedSkip, NO_KERNEL_LINK_KIND, NO_KERNEL_VLAN_FILTERING } from '../../test-support/skip-reasons.ts';

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

const KERNEL_SKIPS = [NO_KERNEL_LINK_KIND, NO_KERNEL_VLAN_FILTERING];
const isKernelSkip = (reason: string) => KERNEL_SKIPS.some((r) => reason === r || reason.startsWith(`${r}: `));

/** A top-level test name as scripts/dev/test.sh prefixes it: "[bun] e2e/x.test.ts", "[kernel 6.1] e2e/x.test.ts". */
const LABELLED = /^\[([^\]]+)\] (.*)$/;
const fileOf = (topName: string) => LABELLED.exec(topName)?.[2] ?? topName;
const isLabRun = (topName: string) => /^kernel\b/.test(LABELLED.exec(topName)?.[1] ?? '');

/** What the kernel-lab rule needs: the listed files, and how each file's lab run ended. */
interface LabCheck {
  readonly files: readonly string[];
  /** the file's lab run passed (ok, not skipped), by file */
  readonly passedInLab: ReadonlyMap<string, boolean>;
}

/** Why a kernel-feature skip in top-level test `top` is not allowed, or undefined when it is. */
function kernelSkipRefused(top: string, lab: LabCheck): string | undefined {
  if (isLabRun(top)) return 'the kernel lab has every kernel feature: its run must not skip for one';
  const file = fileOf(top);
  if (!lab.files.includes(file)) return `a kernel-feature skip is allowed only in a file of e2e/kernel-lab.txt, and ${file} is not one`;
  const lab1 = lab.passedInLab.get(file);
  if (lab1 === undefined) return `${file} did not run in the kernel lab`;
  if (!lab1) return `${file} did not pass in the kernel lab`;
  return undefined;
}

/** What counting adds to, and the kernel-lab rule's facts. */
interface Counting {
  readonly t: Tally;
  readonly lab: LabCheck;
}

function skipOf({ t, lab }: Counting, test: string, top: string, d: { kind: string; reason: string }): void {
  const reason = d.kind === 'TODO' ? `todo: ${d.reason}` : d.reason;
  let allowed = d.kind === 'SKIP' && isAllowedSkip(reason);
  const refused = allowed && isKernelSkip(reason) ? kernelSkipRefused(top, lab) : undefined;
  if (refused !== undefined) allowed = false;
  t.skips.push({ test, reason, allowed });
  if (allowed) t.skipped++;
  else {
    t.failed++;
    t.failures.push(
      refused !== undefined ? `${test} (skipped: ${reason}; ${refused})` : `${test} (skipped for a reason not on the allow-list: ${reason || 'none given'})`,
    );
  }
}

/** Counts one block and its children (`top`: the name of the top-level test it is in); returns how many failures it added. */
function countBlock(c: Counting, b: Block, path: string, top: string): number {
  const { t } = c;
  const before = t.failed;
  if (b.end?.directive) {
    skipOf(c, path, top, b.end.directive);
    return t.failed - before;
  }
  let ownPass = false;
  let ownFail = false;
  for (const p of b.points) {
    if (p.directive) skipOf(c, `${path} > ${p.name}`, top || p.name, p.directive);
    else if (p.ok) ownPass = true;
    else {
      ownFail = true;
      t.failures.push(`${path} > ${p.name}`);
    }
  }
  for (const child of b.children) countBlock(c, child, path === '' ? child.name : `${path} > ${child.name}`, top || child.name);
  if (ownFail) t.failed++;
  else if (ownPass) t.passed++;
  if (b.end !== undefined && !b.end.ok && t.failed === before) {
    t.failed++;
    t.failures.push(`${path} (failed as a whole)`);
  }
  return t.failed - before;
}

/**
 * Counts the log. `kernelLab`: the files of e2e/kernel-lab.txt, the only ones where a skip for a
 * missing kernel feature is allowed (and then only when their kernel-lab run passed).
 */
export function tally(text: string, steps: readonly [string, number][] = [], kernelLab: readonly string[] = []): Tally {
  const t: Tally = { passed: 0, failed: 0, skipped: 0, failures: [], skips: [] };
  for (const [name, status] of steps) {
    if (status === 0) t.passed++;
    else {
      t.failed++;
      t.failures.push(`${name} (exit ${status})`);
    }
  }
  const { root, bailedOut } = parseTap(text);
  const passedInLab = new Map<string, boolean>();
  for (const c of root.children) {
    if (isLabRun(c.name)) passedInLab.set(fileOf(c.name), c.end?.ok === true && c.end.directive === undefined);
  }
  countBlock({ t, lab: { files: kernelLab, passedInLab } }, root, '', '');
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

/** The paths of a list file such as e2e/kernel-lab.txt: one per line, `#` starts a comment. */
export function readList(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim().split(/\s+/)[0] ?? '')
    .filter((l) => l !== '');
}

function main(argv: string[]): number {
  const [log, ...rest] = argv;
  if (log === undefined) throw new Error('usage: tap-summary.ts TAP_LOG [--step NAME=STATUS]... [--kernel-lab LIST]');
  const steps: [string, number][] = [];
  let kernelLab: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--kernel-lab') {
      kernelLab = readList(rest[++i] ?? '');
      continue;
    }
    const m = rest[i] === '--step' ? /^([^=]+)=(\d+)$/.exec(rest[++i] ?? '') : null;
    if (!m) throw new Error(`bad argument ${rest[i]}`);
    steps.push([m[1] as string, Number(m[2])]);
  }
  const t = tally(readFileSync(log, 'utf8'), steps, kernelLab);
  console.log('');
  for (const s of t.skips) console.log(`${s.allowed ? 'skipped' : 'SKIP NOT ALLOWED'}: ${s.test} # ${s.reason}`);
  for (const f of t.failures) console.log(`failed: ${f}`);
  console.log(`${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
  return t.failed > 0 ? 1 : 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
