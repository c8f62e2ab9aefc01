// Compiles the Bun form's starter (runtime/bun-starter.c) with the header it takes from the build:
// the binary's VERSION answers and runtime/starter-env.ts. scripts/build/build-bun.ts uses it for the
// starter it ships; e2e/helpers/multicall.ts for a starter built with a small path buffer.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PHASES } from '../lib/cni-spec/timing.ts';
import { STARTER_DROPS, STARTER_ENV } from './starter-env.ts';

export interface VersionAnswer {
  readonly program: string;
  readonly answer: string;
}

const literal = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;
const list = (l: readonly string[] | undefined) => (l === undefined ? 'NULL' : literal(` ${l.join(' ')} `));

/** starter-versions.h, which runtime/bun-starter.c includes. */
export function starterHeader(answers: readonly VersionAnswer[]): string {
  return [
    '/* Written by runtime/starter-build.ts: the VERSION answers of the Bun binary built with it. */',
    'struct version_answer {',
    '  const char *program;',
    '  const char *answer;',
    '};',
    '/* runtime/starter-env.ts: lists are space-separated with a space at each end, NULL for all. */',
    'struct starter_setting {',
    '  const char *name;',
    '  const char *value;',
    '  const char *programs;',
    '  const char *verbs;',
    '};',
    'static const struct starter_setting STARTER_ENV[] = {',
    ...STARTER_ENV.map((e) => `    {${literal(e.name)}, ${literal(e.value)}, ${list(e.programs)}, ${list(e.verbs)}},`),
    '};',
    '/* runtime/starter-env.ts STARTER_DROPS: what the starter removes from the environment. */',
    `static const char *const DROP_PREFIXES[] = {${STARTER_DROPS.prefixes.map(literal).join(', ')}};`,
    `static const char *const DROP_NAMES[] = {${STARTER_DROPS.names.map(literal).join(', ')}};`,
    '/* The phases of lib/cni-spec/timing.ts, each at zero: a VERSION answered here runs none. */',
    `#define TIMING_ZERO_PHASES ${literal(PHASES.map((p) => `${p}=0.00`).join(' '))}`,
    'static const struct version_answer VERSION_ANSWERS[] = {',
    ...answers.map((a) => `    {${literal(a.program)}, ${literal(a.answer)}},`),
    '};',
    '',
  ].join('\n');
}

function cc(args: readonly string[]): string | undefined {
  const r = spawnSync('cc', args, { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin' } });
  if (r.error) return `cc: ${r.error.message}`;
  return r.status === 0 ? undefined : `cc ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`;
}

/**
 * runtime/bun-starter.c with the answers compiled in (the header goes to `work`); static where the
 * C library allows (no loader to run, so no LD_* acts on the starter itself). `defines` are -D
 * settings, for tests.
 */
export function compileStarter(answers: readonly VersionAnswer[], work: string, outfile: string, defines: readonly string[] = []): void {
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'starter-versions.h'), starterHeader(answers));
  const source = resolve(import.meta.dirname, 'bun-starter.c');
  const args = ['-O2', '-s', '-Wall', '-Wextra', '-Werror', ...defines.map((d) => `-D${d}`), '-I', work, '-o', outfile, source];
  const failed = cc(['-static', ...args]) === undefined ? undefined : cc(args);
  if (failed !== undefined) throw new Error(failed);
  chmodSync(outfile, 0o755);
}
