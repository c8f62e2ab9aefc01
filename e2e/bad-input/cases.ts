// The malformed invocations, derived from the targets' schemas. Every case is enumerated in a
// fixed order; the seed shuffles them and chooses the random parts (truncation points, garbage
// bytes), so `--seed S --id ID` rebuilds exactly one case.
import { resultSchema } from '../../lib/cni-spec/result-schema.ts';
import { Rng } from './rng.ts';
import { formatPath, schemaFields, setPath, wrongValues, type Path } from '../../test-support/bad-input/schema-fields.ts';
import { allSchemas, type Ctx, type Target } from '../../test-support/bad-input/targets.ts';

export type Verb = 'ADD' | 'DEL' | 'CHECK';
export const VERBS: readonly Verb[] = ['ADD', 'DEL', 'CHECK'];

/** What the runtime would see: success, or an error object with one of these codes. */
export type Expect = { readonly success: true } | { readonly codes: readonly number[] };

export interface RunCtx extends Ctx {
  /** the pod netns path */
  readonly podPath: string;
  /** the baseline ADD's result, for CHECK */
  readonly prevResult: unknown;
  readonly pluginDir: string;
}

export interface Case {
  readonly id: string;
  readonly class: string;
  readonly plugin: string;
  readonly verb: Verb;
  readonly expect: Expect;
  /** the CNI_* variables: a string sets one, null removes it */
  env(c: RunCtx): Record<string, string | null>;
  stdin(c: RunCtx): string;
}

const ok: Expect = { success: true };
const code = (...codes: number[]): Expect => ({ codes });

/** The batch's valid config for a verb: CHECK carries the baseline's result. */
export function validConfig(t: Target, verb: Verb, c: RunCtx): Record<string, unknown> {
  const base = t.base(c);
  return verb === 'CHECK' ? { ...base, prevResult: c.prevResult } : base;
}

function baseEnv(verb: string, c: RunCtx): Record<string, string | null> {
  return { CNI_COMMAND: verb, CNI_CONTAINERID: 'bi-ctr', CNI_NETNS: c.podPath, CNI_IFNAME: 'eth0', CNI_PATH: c.pluginDir };
}

/** A case's identity: its plugin, verb, class and the detail that makes its id unique. */
interface Which {
  readonly t: Target;
  readonly verb: Verb;
  readonly cls: string;
  readonly detail: string;
}

function mk({ t, verb, cls, detail }: Which, expect: Expect, o: { env?: (c: RunCtx) => Record<string, string | null>; stdin?: (c: RunCtx) => string }): Case {
  return {
    id: `${t.plugin}:${verb}:${cls}:${detail}`,
    class: cls,
    plugin: t.plugin,
    verb,
    expect,
    env: (c) => ({ ...baseEnv(verb, c), ...o.env?.(c) }),
    stdin: o.stdin ?? ((c) => JSON.stringify(validConfig(t, verb, c))),
  };
}

const withField = (t: Target, verb: Verb, path: Path, value: unknown) => (c: RunCtx) => JSON.stringify(setPath(validConfig(t, verb, c), path, value));

function typeCases(t: Target): Case[] {
  const out: Case[] = [];
  const seen = new Set<string>();
  allSchemas(t).forEach((schema, i) => {
    for (const f of schemaFields(schema)) {
      const at = formatPath(f.path);
      if (seen.has(at)) continue;
      seen.add(at);
      const shared = i === 0;
      for (const [kind, value] of wrongValues(f.kind)) {
        for (const verb of VERBS) {
          // skel reads cniVersion itself: a wrong type there is its decoding failure, code 6.
          // DEL goes on without a prevResult it cannot read (docs/divergences.md, P7).
          const expect =
            at === 'cniVersion' ? code(6) : at === 'prevResult' && verb === 'DEL' ? ok : shared || verb !== 'DEL' || t.delReadsConfig ? code(7) : ok;
          out.push(mk({ t, verb, cls: 'wrong JSON type', detail: `${at}=${kind}` }, expect, { stdin: withField(t, verb, f.path, value) }));
        }
      }
    }
  });
  return out;
}

/** formatPath's inverse: `a.b[0]["net.core.x"]` → ['a', 'b', 0, 'net.core.x'] (a key with dots stays one). */
function parsePath(s: string): Path {
  return [...s.matchAll(/\[(0|"(?:[^"\\]|\\.)*")\]|[^.[]+/g)].map((m) => (m[1] === undefined ? m[0] : m[1] === '0' ? 0 : (JSON.parse(m[1]) as string)));
}

function valueCases(t: Target): Case[] {
  const out: Case[] = [];
  const label = (v: unknown) => (typeof v === 'string' && v.length > 64 ? `<${v.length} bytes>` : JSON.stringify(v));
  for (const verb of t.valueVerbs ?? ['ADD']) {
    for (const [at, values] of [...Object.entries(t.badStrings ?? {}), ...Object.entries(t.badNumbers ?? {})]) {
      for (const v of values as readonly unknown[]) {
        out.push(mk({ t, verb, cls: 'invalid value', detail: `${at}=${label(v)}` }, code(7), { stdin: withField(t, verb, parsePath(at), v) }));
      }
    }
  }
  return out;
}

function jsonCases(t: Target, rng: Rng): Case[] {
  const out: Case[] = [];
  for (const verb of VERBS) {
    const raw = (text: string | ((c: RunCtx) => string)) => ({ stdin: typeof text === 'string' ? () => text : text });
    for (let k = 0; k < 3; k++) {
      const cut = rng.next();
      out.push(
        mk(
          { t, verb, cls: 'broken JSON', detail: `truncated@${cut.toFixed(3)}` },
          code(6),
          raw((c) => {
            const s = JSON.stringify(validConfig(t, verb, c));
            return s.slice(0, Math.max(1, Math.floor(cut * (s.length - 1))));
          }),
        ),
      );
    }
    const garbage = Array.from({ length: 64 }, () => String.fromCharCode(0x21 + rng.int(90))).join('');
    out.push(mk({ t, verb, cls: 'broken JSON', detail: 'garbage' }, code(6), raw(`x${garbage}`)));
    out.push(mk({ t, verb, cls: 'broken JSON', detail: 'empty stdin' }, code(6), raw('')));
    out.push(
      mk(
        { t, verb, cls: 'broken JSON', detail: 'trailing data' },
        code(6),
        raw((c) => `${JSON.stringify(validConfig(t, verb, c))} {}`),
      ),
    );
    for (const [name, text] of [
      ['array', '[]'],
      ['string', '"x"'],
      ['number', '5'],
      ['true', 'true'],
    ] as const) {
      out.push(mk({ t, verb, cls: 'not an object', detail: name }, code(6), raw(text)));
    }
    out.push(mk({ t, verb, cls: 'not an object', detail: 'null' }, code(6, 7), raw('null')));
    out.push(mk({ t, verb, cls: 'broken JSON', detail: 'empty object' }, code(7), raw('{}')));
    out.push(
      mk(
        { t, verb, cls: 'deep JSON', detail: '10001 levels' },
        code(6),
        raw((c) => {
          const s = JSON.stringify({ ...validConfig(t, verb, c), deep: '@@' });
          return s.replace('"@@"', `${'['.repeat(10_000)}${']'.repeat(10_000)}`);
        }),
      ),
    );
    out.push(mk({ t, verb, cls: 'deep JSON', detail: '1e6 levels' }, code(6), raw('['.repeat(1_000_000))));
    out.push(
      mk(
        { t, verb, cls: 'huge JSON', detail: '16 MiB truncated' },
        code(6),
        raw((c) => `${JSON.stringify(validConfig(t, verb, c)).slice(0, -1)}${' '.repeat(16 << 20)}`),
      ),
    );
  }
  return out;
}

const IFNAME_ENV = ['a/b', 'a:b', 'a b', '.', '..', 'abcdefghijklmnop', 'eth\u00e0', 'x'.repeat(65536)];
const CONTAINER_IDS = ['-x', 'a b', 'a/b', 'ä', '.x'];

function envCases(t: Target): Case[] {
  const out: Case[] = [];
  for (const verb of VERBS) {
    const env = (e: Record<string, string | null>) => ({ env: () => e });
    for (const cmd of ['add', 'FROB', 'VERSIONX']) out.push(mk({ t, verb, cls: 'bad CNI_COMMAND', detail: cmd }, code(4), env({ CNI_COMMAND: cmd })));
    const required: [string, readonly Verb[]][] = [
      ['CNI_CONTAINERID', VERBS],
      ['CNI_NETNS', ['ADD', 'CHECK']],
      ['CNI_IFNAME', VERBS],
      ['CNI_PATH', VERBS],
    ];
    for (const [name, verbs] of required) {
      if (verbs.includes(verb)) out.push(mk({ t, verb, cls: 'missing CNI_*', detail: name }, code(4), env({ [name]: null })));
    }
    for (const id of CONTAINER_IDS) out.push(mk({ t, verb, cls: 'bad CNI_CONTAINERID', detail: JSON.stringify(id) }, code(4), env({ CNI_CONTAINERID: id })));
    for (const n of IFNAME_ENV)
      out.push(mk({ t, verb, cls: 'bad CNI_IFNAME', detail: n.length > 64 ? `<${n.length} bytes>` : JSON.stringify(n) }, code(4), env({ CNI_IFNAME: n })));
  }
  // The spec: DEL must succeed when the container's netns is already gone.
  out.push(mk({ t, verb: 'DEL', cls: 'DEL of a gone netns', detail: 'no such path' }, ok, { env: () => ({ CNI_NETNS: '/run/netns/cnits-bi-gone' }) }));
  out.push(mk({ t, verb: 'DEL', cls: 'DEL of a gone netns', detail: 'CNI_NETNS unset' }, ok, { env: () => ({ CNI_NETNS: null }) }));
  if (t.usesNetns) {
    for (const verb of ['ADD', 'CHECK'] as const) {
      const ns = (path: string, expect: Expect) => mk({ t, verb, cls: 'bad netns', detail: path }, expect, { env: () => ({ CNI_NETNS: path }) });
      // Code 3 tells the runtime it need not DEL: only a plugin that runs first (no prevResult)
      // can know nothing was made. CHECK always carries a prevResult.
      out.push(ns('/run/netns/cnits-bi-gone', code(verb === 'ADD' && t.prepare === undefined ? 3 : 999)));
      out.push(ns('/etc/hostname', code(4)));
      out.push(ns('/dev/null', code(4)));
      out.push(ns('/var/tmp', code(4)));
      out.push(ns('/proc/self/ns/net', code(8, 4)));
    }
  }
  return out;
}

function prevResultCases(t: Target): Case[] {
  const out: Case[] = [];
  const bad: [string, unknown, Expect][] = [
    ['ips not a list', { cniVersion: '1.0.0', ips: 'x' }, code(7)],
    ['bad address', { cniVersion: '1.0.0', ips: [{ address: '10.0.0.300/24' }] }, code(7)],
    ['address without prefix', { cniVersion: '1.0.0', ips: [{ address: '10.0.0.3' }] }, code(7)],
    ['interface name a number', { cniVersion: '1.0.0', interfaces: [{ name: 5 }] }, code(7)],
    ['interface index a string', { cniVersion: '1.0.0', ips: [{ address: '10.0.0.3/24', interface: '0' }] }, code(7)],
    ['route dst garbage', { cniVersion: '1.0.0', routes: [{ dst: 'x' }] }, code(7)],
    ['dns a string', { cniVersion: '1.0.0', dns: 'x' }, code(7)],
    ['other version family', { cniVersion: '0.2.0', ip4: { ip: '10.0.0.3/24' } }, code(1)],
    ['unknown version', { cniVersion: '7.0.0' }, code(1)],
  ];
  for (const verb of VERBS) {
    for (const [name, prev, expect] of bad) {
      // A DEL never fails on prevResult: teardown of the whole chain depends on it.
      out.push(
        mk({ t, verb, cls: 'malformed prevResult', detail: name }, verb === 'DEL' ? ok : expect, {
          stdin: (c) => JSON.stringify({ ...t.base(c), prevResult: prev }),
        }),
      );
    }
  }
  return t.prepare ? [...out, ...chainedPrevCases(t)] : out;
}

/**
 * A chained plugin's prevResult is its main input: each field of the result schema with every
 * wrong JSON type (ADD and CHECK refuse it, DEL goes on without); none at all (ADD and CHECK
 * need one, DEL must succeed without); and the
 * target's own well-formed but wrong ones.
 */
function chainedPrevCases(t: Target): Case[] {
  const out: Case[] = [];
  const seen = new Set<string>();
  for (const f of schemaFields(resultSchema('100'))) {
    const path: Path = ['prevResult', ...f.path];
    const at = formatPath(path);
    if (seen.has(at)) continue;
    seen.add(at);
    for (const [kind, value] of wrongValues(f.kind)) {
      for (const verb of VERBS)
        out.push(
          mk({ t, verb, cls: 'prevResult wrong JSON type', detail: `${at}=${kind}` }, verb === 'DEL' ? ok : code(7), {
            stdin: withField(t, verb, path, value),
          }),
        );
    }
  }
  const without = (verb: Verb) => (c: RunCtx) => {
    const { prevResult: _drop, ...rest } = validConfig(t, verb, c);
    return JSON.stringify(rest);
  };
  for (const verb of VERBS) out.push(mk({ t, verb, cls: 'no prevResult', detail: 'absent' }, verb === 'DEL' ? ok : code(7), { stdin: without(verb) }));
  for (const p of t.prevCases ?? []) {
    for (const verb of VERBS) {
      const codes = p.codes[verb];
      out.push(
        mk({ t, verb, cls: 'wrong prevResult', detail: p.name }, codes ? code(...codes) : ok, {
          stdin: (c) => JSON.stringify({ ...t.base(c), prevResult: p.prev(c.chain ?? {}) }),
        }),
      );
    }
  }
  return out;
}

function cniArgsCases(t: Target): Case[] {
  if (!t.readsCniArgs) return [];
  const out: Case[] = [];
  const verbs: Verb[] = t.delReadsConfig ? ['ADD', 'DEL'] : ['ADD'];
  for (const verb of verbs) {
    for (const args of ['garbage', 'A=B', 'IgnoreUnknown=maybe', '=;=', 'K8S_POD_NAME=a=b', ';;']) {
      out.push(mk({ t, verb, cls: 'CNI_ARGS garbage', detail: JSON.stringify(args) }, code(4, 7, 999), { env: () => ({ CNI_ARGS: args }) }));
    }
  }
  return out;
}

/** Every case for the targets, in a fixed order; the seed fixes the random parts. */
export function allCases(targets: readonly Target[], seed: number): Case[] {
  const rng = new Rng(seed);
  return targets.flatMap((t) => [...typeCases(t), ...valueCases(t), ...jsonCases(t, rng), ...envCases(t), ...prevResultCases(t), ...cniArgsCases(t)]);
}

/**
 * `count` cases (all when undefined), chosen by the seed and spread over the targets evenly,
 * or exactly the ones whose id is listed.
 */
export function selectCases(targets: readonly Target[], seed: number, o: { count?: number; ids?: readonly string[] } = {}): Case[] {
  const all = allCases(targets, seed);
  if (o.ids && o.ids.length > 0) return all.filter((c) => o.ids?.includes(c.id));
  if (o.count === undefined || o.count >= all.length) return new Rng(seed ^ 0x5eed).shuffle(all);
  const rng = new Rng(seed ^ 0x5eed);
  const per = targets.map((t) => rng.shuffle(all.filter((c) => c.plugin === t.plugin)));
  const out: Case[] = [];
  for (let i = 0; out.length < o.count; i++) {
    const c = per[i % per.length]?.[Math.floor(i / per.length)];
    if (c) out.push(c);
    if (i > all.length * 2) break;
  }
  return out;
}
