// The network config `cni-ts install --conflist` writes into the conf dir: a template whose string
// values may hold {{KEY}} placeholders (filled from --set KEY=VALUE), checked as `cni-run validate`
// checks a file (each plugin's own config loader), and refused unless every plugin it names is
// one of ours: the installer writes a network only the programs it installs can run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLUGIN_NAMES } from '../../plugins/registry.ts';
import { loadPluginChecks } from '../cni-run/plugin-checks.ts';
import { formatFinding, validateText } from '../cni-run/validate.ts';
import { InstallError, safeName } from './files.ts';

export interface ConflistOptions {
  readonly template: string;
  readonly name?: string | undefined;
  readonly priority: string;
  readonly set: Readonly<Record<string, string>>;
}

export interface Conflist {
  /** the file name in the conf dir: NN-name.conflist */
  readonly file: string;
  readonly text: string;
}

const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

/** `value` with each {{KEY}} in its strings replaced; a key without a value is an error. */
export function fillPlaceholders(value: unknown, set: Readonly<Record<string, string>>, unset: Set<string>): unknown {
  if (typeof value === 'string')
    return value.replace(PLACEHOLDER, (whole, key: string) => {
      if (Object.hasOwn(set, key)) return set[key] as string;
      unset.add(key);
      return whole;
    });
  if (Array.isArray(value)) return value.map((v) => fillPlaceholders(v, set, unset));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, set, unset)]));
  return value;
}

/** Every `type` the list names: its plugins' and their IPAM sections'. */
function typesNamed(list: Record<string, unknown>): string[] {
  const plugins = Array.isArray(list['plugins']) ? (list['plugins'] as unknown[]) : [];
  return plugins.flatMap((p) => {
    const o = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
    const ipam = (typeof o['ipam'] === 'object' && o['ipam'] !== null ? o['ipam'] : {}) as Record<string, unknown>;
    return [o['type'], ipam['type']].filter((t): t is string => typeof t === 'string');
  });
}

export function parseSet(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const at = p.indexOf('=');
    const key = at < 0 ? '' : p.slice(0, at);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new InstallError(`--set ${p}: give KEY=VALUE, KEY made of letters, digits and _`);
    out[key] = p.slice(at + 1);
  }
  return out;
}

/** Reads, fills and checks the template; nothing is written. */
export async function prepareConflist(o: ConflistOptions): Promise<Conflist> {
  if (!/^\d{1,4}$/.test(o.priority)) throw new InstallError(`--priority ${o.priority}: give a number of up to 4 digits`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(o.template, 'utf8'));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new InstallError(`--conflist ${o.template}: ${e.code !== undefined ? `cannot read it (${e.code})` : `not valid JSON (${e.message})`}`, {
      cause: err,
    });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InstallError(`--conflist ${o.template}: not a JSON object`);
  const unset = new Set<string>();
  const list = fillPlaceholders(raw, o.set, unset) as Record<string, unknown>;
  if (unset.size > 0) throw new InstallError(`--conflist ${o.template}: no --set for ${[...unset].map((k) => `{{${k}}}`).join(', ')}`);
  if (!Array.isArray(list['plugins'])) throw new InstallError(`--conflist ${o.template}: not a conflist (no "plugins" list)`);
  const foreign = typesNamed(list).filter((t) => !(PLUGIN_NAMES as readonly string[]).includes(t));
  if (foreign.length > 0) throw new InstallError(`--conflist ${o.template}: names plugins cni-ts does not have: ${[...new Set(foreign)].join(', ')}`);
  const name = o.name ?? (typeof list['name'] === 'string' ? list['name'] : '');
  if (!safeName(name)) throw new InstallError(`--conflist-name "${name}": give a file-name-safe name (letters, digits, . _ + -)`);
  const text = `${JSON.stringify(list, null, 2)}\n`;
  const file = `${o.priority}-${name}.conflist`;
  await loadPluginChecks();
  const report = validateText(join('(conf dir)', file), text);
  const errors = report.findings.filter((f) => f.severity === 'error');
  if (errors.length > 0) throw new InstallError(`--conflist ${o.template}: ${errors.map(formatFinding).join('; ')}`);
  return { file, text };
}
