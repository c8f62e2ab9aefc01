// zod/mini validation with Go-style key folding, and zod issues turned into one readable line
// per failing field ("ipam.ranges[0][0].subnet: expected string, received number").
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { foldBySchema } from './fold-schema.ts';
import { shapeFor, type NamedSchema } from './named-schema.ts';
import { quickParse } from './quick-parse.ts';

let localeSet = false;

// zod/mini ships without messages; set English on first use, not at import (start-up cost).
function ensureLocale(): void {
  if (localeSet) return;
  z.config(en());
  localeSet = true;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (typeof p === 'string' && IDENT.test(p)) out += out === '' ? p : `.${p}`;
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out;
}

type Issue = z.core.$ZodIssue;

function describe(issue: Issue): string {
  if (issue.code === 'invalid_type' && / received undefined$/.test(issue.message)) {
    return `required field missing (expected ${issue.expected})`;
  }
  // "Invalid input: expected string, received number" reads better without its preamble.
  return issue.message.replace(/^Invalid input: /, '');
}

const rootTypeError = (issues: readonly Issue[]): boolean => issues.length === 1 && issues[0]?.code === 'invalid_type' && issues[0].path.length === 0;

function formatIssue(issue: Issue, prefix: readonly PropertyKey[], out: string[]): void {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const branches = issue.errors;
    if (branches.every(rootTypeError)) {
      const expected = branches.map((b) => (b[0] as z.core.$ZodIssueInvalidType).expected);
      const received = / (received \S+)$/.exec(branches[0]?.[0]?.message ?? '')?.[1];
      const at = formatPath(path);
      out.push(`${at ? `${at}: ` : ''}expected ${[...new Set(expected)].join(' or ')}${received ? `, ${received}` : ''}`);
      return;
    }
    // The branch whose JSON type matched is the one the author meant; report its issues.
    const best = branches.filter((b) => !rootTypeError(b)).sort((a, b) => a.length - b.length)[0] ?? [];
    for (const i of best) formatIssue(i, path, out);
    return;
  }
  const at = formatPath(path);
  out.push(at ? `${at}: ${describe(issue)}` : describe(issue));
}

export function formatIssues(issues: readonly Issue[]): string[] {
  const out: string[] = [];
  for (const i of issues) formatIssue(i, [], out);
  return out;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Folds keys per the schema, then validates; never throws for invalid input. */
export function validate<S extends z.core.$ZodType>(schema: S, raw: unknown): Validated<z.output<S>> {
  ensureLocale();
  const r = z.safeParse(schema, foldBySchema(schema, raw));
  return r.success ? { ok: true, value: r.data } : { ok: false, problems: formatIssues(r.error.issues) };
}

/** validate() of a named schema: its quick reading first, zod (built now) when that gives up. */
export function quickRead<S extends z.core.$ZodType>(schema: NamedSchema<S>, raw: unknown): Validated<z.output<S>> {
  const q = quickParse(shapeFor(schema), raw);
  return q ? { ok: true, value: q.value as z.output<S> } : validate(schema(), raw);
}
