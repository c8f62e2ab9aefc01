// `cni-run validate`: judges network config files without running anything. Each plugin's
// config is checked by that plugin's own loader (plugin-checks.ts), exactly as the runtime
// would hand it over (name, cniVersion and runtimeConfig injected as libcni does); the list
// itself by libcni's rules plus what makes a list work (a chained plugin after the one that
// makes the interface, capabilities declared where the runtime's args must go). Pure: file
// names and texts in, findings out
// (once loadPluginChecks() has imported the plugins' loaders).
import { commonConfSchema } from '../../lib/cni-spec/common-conf.ts';
import { ALL_VERSIONS, asCniError, compareVersions, isCniVersion, parseWithSchema, type CniRequest, type CniVersion } from '../../lib/cni-spec/index.ts';
import { isValidName } from '../../lib/cni-spec/env.ts';
import { extname } from 'node:path';
import { buildPluginConfig } from '../libcni/inject.ts';
import type { NetworkConfigList } from '../libcni/conflist.ts';
import { LIST_EXTENSIONS, SINGLE_EXTENSIONS } from '../libcni/conf-dir.ts';
import { pluginChecks } from './plugin-checks.ts';

export type Severity = 'error' | 'warning' | 'note';

export interface Finding {
  readonly severity: Severity;
  readonly file: string;
  /** index in `plugins` (absent: the list itself) */
  readonly plugin?: number;
  readonly type?: string;
  /** where in the plugin's config (or the list, without `plugin`): ipam.ranges[0][0].subnet */
  readonly field: string;
  readonly message: string;
}

export interface FileReport {
  readonly file: string;
  /** the network the file defines, when it has a usable name */
  readonly network?: string;
  readonly findings: readonly Finding[];
}

export interface Report {
  readonly valid: boolean;
  readonly errors: number;
  readonly warnings: number;
  readonly files: readonly FileReport[];
}

export interface ValidateOptions {
  /** the capability args the command line would pass (checked against the plugins that declare them) */
  readonly capabilityArgs?: Readonly<Record<string, unknown>>;
  /** which flag set each capability key, for messages */
  readonly capabilitySources?: Readonly<Record<string, string>>;
  /** CNI_ARGS as the command line would pass them */
  readonly cniArgs?: string;
  readonly ifname?: string;
  /**
   * The plugin configs of network `network`'s folder beside `listFile` (libcni v1.3 appends
   * them to the list's own); without it, a list is judged on its inlined plugins alone.
   */
  readonly readPluginFolder?: (listFile: string, network: string) => PluginFolder;
}

/** A network's plugin folder as read from disk: its *.conf files in name order, or why it could not be read. */
export interface PluginFolder {
  readonly folder: string;
  readonly files: readonly { file: string; text: string }[];
  readonly error?: string;
}

const RESERVED = ['runtimeConfig', 'prevResult'];
const NEWEST = ALL_VERSIONS[ALL_VERSIONS.length - 1] as CniVersion;

type Add = (f: Omit<Finding, 'file'>) => void;

// A field path as the plugins print it (lib/cni-spec/schema.ts formatPath).
const FIELD_PATH = /^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\["[^"]*"\])*$/;
const FIELD_PROBLEM = /^([A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\["[^"]*"\])*): (.*)$/s;

/**
 * The field problems of a plugin's error: every plugin throws code 7 with the fields in
 * `details`, either one path (the message being `msg`) or "path: problem; path: problem".
 */
export function fieldProblems(err: unknown): { field: string; message: string }[] {
  const e = asCniError(err);
  const details = e.details ?? '';
  if (details === '') return [{ field: '', message: e.msg }];
  if (FIELD_PATH.test(details)) return [{ field: details, message: e.msg }];
  return details.split('; ').map((part) => {
    const m = FIELD_PROBLEM.exec(part);
    return m ? { field: m[1] as string, message: m[2] as string } : { field: '', message: `${e.msg}: ${part}` };
  });
}

function flag(raw: Record<string, unknown>, key: string, add: Add): void {
  const v = raw[key];
  if (v === undefined || typeof v === 'boolean' || (typeof v === 'string' && /^(true|false)$/i.test(v))) return;
  add({ severity: 'error', field: key, message: `must be true or false (libcni also takes the strings "true" and "false"), got ${JSON.stringify(v)}` });
}

function isVersion(v: string): boolean {
  try {
    compareVersions(v, '0.1.0');
    return true;
  } catch {
    return false;
  }
}

/** libcni's choice: the highest of cniVersion and cniVersions that we implement; undefined when none is usable. */
function listVersion(raw: Record<string, unknown>, add: Add): string | undefined {
  const declared = raw['cniVersion'];
  const listed = raw['cniVersions'];
  if (declared === undefined && listed === undefined) {
    add({
      severity: 'warning',
      field: 'cniVersion',
      message: 'missing: the list is read as 0.1.0 (no CHECK, no prevResult on DEL); give the version it is written for',
    });
    return '0.1.0';
  }
  const candidates: string[] = [];
  if (declared !== undefined) {
    if (typeof declared !== 'string') add({ severity: 'error', field: 'cniVersion', message: `must be a string, got ${JSON.stringify(declared)}` });
    else if (!isCniVersion(declared)) {
      add({ severity: 'error', field: 'cniVersion', message: `${JSON.stringify(declared)} is not a spec version we know (${ALL_VERSIONS.join(', ')})` });
    } else candidates.push(declared);
  }
  if (listed !== undefined) {
    if (!Array.isArray(listed) || listed.some((v) => typeof v !== 'string')) {
      add({ severity: 'error', field: 'cniVersions', message: 'must be a list of version strings' });
    } else {
      (listed as string[]).forEach((v, i) => {
        if (!isVersion(v)) add({ severity: 'error', field: `cniVersions[${i}]`, message: `${JSON.stringify(v)} is not a version` });
        else if (compareVersions(v, NEWEST) > 0)
          add({ severity: 'note', field: `cniVersions[${i}]`, message: `${v} is newer than we implement (${NEWEST}): ignored, as libcni does` });
        else if (!isCniVersion(v)) add({ severity: 'error', field: `cniVersions[${i}]`, message: `${JSON.stringify(v)} is not a spec version we know` });
        else candidates.push(v);
      });
      if (compareVersions(typeof declared === 'string' && isVersion(declared) ? declared : '0.1.0', '1.1.0') < 0 && listed.length > 0) {
        add({ severity: 'note', field: 'cniVersions', message: 'read only by runtimes on libcni 1.2 or later (spec 1.1.0); older ones use cniVersion alone' });
      }
    }
  }
  if (candidates.length === 0) return undefined;
  return candidates.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
}

function pluginObject(p: unknown, i: number, add: Add): Record<string, unknown> | undefined {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) {
    add({ severity: 'error', plugin: i, field: '', message: 'a plugin config must be a JSON object' });
    return undefined;
  }
  const type = (p as Record<string, unknown>)['type'];
  if (typeof type !== 'string' || type === '') {
    add({ severity: 'error', plugin: i, field: 'type', message: "missing: the plugin's executable name" });
    return undefined;
  }
  if (type.includes('/') || type === '.' || type === '..') {
    add({ severity: 'error', plugin: i, type, field: 'type', message: 'must be a file name on the plugin path, without "/"' });
    return undefined;
  }
  return p as Record<string, unknown>;
}

/** The inlined plugins; [] when there is no `plugins` key and the folder may supply them. */
function inlinedPlugins(raw: Record<string, unknown>, inlinedOnly: boolean, add: Add): Record<string, unknown>[] | undefined {
  const plugins = raw['plugins'];
  if (plugins === undefined) {
    if (!inlinedOnly) return [];
    add({ severity: 'error', field: 'plugins', message: 'missing: with loadOnlyInlinedPlugins the list must hold its plugins (libcni refuses it)' });
    return undefined;
  }
  if (!Array.isArray(plugins) || plugins.length === 0) {
    add({ severity: 'error', field: 'plugins', message: 'must be a non-empty array of plugin configs' });
    return undefined;
  }
  const checked = plugins.map((p: unknown, i) => pluginObject(p, i, add));
  const ok = checked.filter((p) => p !== undefined);
  return ok.length === checked.length ? ok : undefined;
}

/** The plugins of the network's folder, numbered after the inlined ones; findings name each plugin's file. */
function folderPlugins(folder: PluginFolder, first: number, findings: Finding[]): { plugins: Record<string, unknown>[]; adds: Add[] } | undefined {
  if (folder.error !== undefined) {
    findings.push({ severity: 'error', file: folder.folder, field: '', message: `cannot read the plugin configs of the network: ${folder.error}` });
    return undefined;
  }
  const plugins: Record<string, unknown>[] = [];
  const adds: Add[] = [];
  let ok = true;
  folder.files.forEach(({ file, text }, i) => {
    const add: Add = (f) => findings.push({ ...f, file });
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      add({ severity: 'error', plugin: first + i, field: '', message: `not JSON: ${(err as Error).message}` });
      ok = false;
      return;
    }
    const p = pluginObject(raw, first + i, add);
    if (p === undefined) ok = false;
    else {
      plugins.push(p);
      adds.push(add);
    }
  });
  return ok ? { plugins, adds } : undefined;
}

function declaredCapabilities(plugin: Record<string, unknown>): string[] {
  const caps = plugin['capabilities'];
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) return [];
  return Object.entries(caps).flatMap(([k, v]) => (v === true ? [k] : []));
}

function request(list: NetworkConfigList, config: Record<string, unknown>, o: ValidateOptions): CniRequest {
  return {
    command: 'ADD',
    containerId: 'cni-run-validate',
    netns: '/run/netns/cni-run-validate',
    ifname: o.ifname ?? 'eth0',
    args: o.cniArgs ?? '',
    path: [],
    env: {},
    stdin: Buffer.from(JSON.stringify(config)),
    config,
    cniVersion: list.cniVersion as CniVersion,
    name: list.name,
  };
}

/** One plugin, checked by its own loader (and its IPAM's) on the config the runtime would send it. */
function checkPlugin(list: NetworkConfigList, index: number, o: ValidateOptions, add: Add): void {
  const plugin = list.plugins[index] as Record<string, unknown>;
  const type = plugin['type'] as string;
  const at = (f: Omit<Finding, 'file' | 'plugin' | 'type'>) => add({ ...f, plugin: index, type });
  const fromFlag = (field: string) => {
    const cap = /^runtimeConfig\.([^.[]+)/.exec(field)?.[1];
    const source = cap !== undefined ? o.capabilitySources?.[cap] : undefined;
    return source !== undefined ? ` (the value given by ${source})` : '';
  };
  const run = (load: (req: CniRequest) => void) => {
    const config = buildPluginConfig(list, plugin, o.capabilityArgs !== undefined ? { capabilityArgs: o.capabilityArgs } : {});
    try {
      parseWithSchema(commonConfSchema, config);
      load(request(list, config, o));
    } catch (err) {
      for (const p of fieldProblems(err)) at({ severity: 'error', field: p.field, message: `${p.message}${fromFlag(p.field)}` });
    }
  };
  for (const key of Object.keys(plugin)) {
    if (RESERVED.includes(key) || key.startsWith('cni.dev/')) {
      at({ severity: 'warning', field: key, message: 'is reserved: the runtime sets it at run time, and it replaces what the file says' });
    }
  }
  const checks = pluginChecks();
  const check = checks[type];
  if (check === undefined) {
    at({ severity: 'note', field: 'type', message: `not checked: unknown type "${type}" (not one of ours: ${Object.keys(checks).join(', ')})` });
    run(() => {});
    return;
  }
  if (check.chained && index === 0) {
    at({
      severity: 'error',
      field: 'type',
      message: `${type} works on the result of a plugin before it (prevResult): put it after the plugin that makes the interface`,
    });
  }
  run(check.load);
  const ipam = plugin['ipam'];
  const ipamType = typeof ipam === 'object' && ipam !== null ? (ipam as Record<string, unknown>)['type'] : undefined;
  // What the plugin reads from runtimeConfig, its IPAM included; unknown with an IPAM not ours.
  let readable: string[] | undefined = [...check.capabilities];
  if (check.usesIpam && typeof ipamType === 'string' && ipamType !== '') {
    const ipamCheck = checks[ipamType];
    if (ipamCheck === undefined) {
      at({ severity: 'note', field: 'ipam.type', message: `not checked: unknown IPAM type "${ipamType}"` });
      readable = undefined;
    } else if (!ipamCheck.isIpam) {
      at({ severity: 'error', field: 'ipam.type', message: `${ipamType} is not an IPAM plugin` });
    } else {
      run(ipamCheck.load);
      readable.push(...ipamCheck.capabilities);
    }
  }
  for (const cap of declaredCapabilities(plugin)) {
    if (readable === undefined || readable.includes(cap)) continue;
    const reads = readable.length > 0 ? `it reads ${readable.join(', ')}` : 'it reads none';
    at({
      severity: 'warning',
      field: `capabilities.${cap}`,
      message: `${type} does not read the ${cap} capability (${reads}): the runtime's value would be ignored`,
    });
  }
}

/** A list (or a single plugin's config, `single`) from one file. */
export function validateText(file: string, text: string, o: ValidateOptions = {}): FileReport {
  const findings: Finding[] = [];
  const add: Add = (f) => findings.push({ ...f, file });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    add({ severity: 'error', field: '', message: `not JSON: ${(err as Error).message}` });
    return { file, findings };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    add({ severity: 'error', field: '', message: 'a network config must be a JSON object' });
    return { file, findings };
  }
  let obj = raw as Record<string, unknown>;
  // A single plugin's config (.conf/.json without "plugins") is what libcni makes a list of one of.
  const single = SINGLE_EXTENSIONS.includes(extname(file)) && !Array.isArray(obj['plugins']);
  if (single) {
    obj = { name: obj['name'], cniVersion: obj['cniVersion'], plugins: [obj] };
    if (obj['cniVersion'] === undefined) delete obj['cniVersion'];
    add({ severity: 'note', field: '', message: 'a single-plugin config (deprecated by libcni): a .conflist with one plugin is the current form' });
  }
  const name = obj['name'];
  let network: string | undefined;
  if (name === undefined) add({ severity: 'error', field: 'name', message: 'missing: the network name runtimes look the config up by' });
  else if (typeof name !== 'string') add({ severity: 'error', field: 'name', message: `must be a string, got ${JSON.stringify(name)}` });
  else if (!isValidName(name))
    add({ severity: 'error', field: 'name', message: `${JSON.stringify(name)}: letters, digits, "_", "." and "-", starting with a letter or digit` });
  else network = name;
  const version = listVersion(obj, add);
  for (const key of ['disableCheck', 'disableGC', 'loadOnlyInlinedPlugins']) flag(obj, key, add);
  const inlinedOnly = /^true$/i.test(String(obj['loadOnlyInlinedPlugins']));
  const inlined = inlinedPlugins(obj, inlinedOnly, add);
  const folder = !single && !inlinedOnly && network !== undefined ? o.readPluginFolder?.(file, network) : undefined;
  const fromFolder = folder === undefined ? { plugins: [], adds: [] } : folderPlugins(folder, inlined?.length ?? 0, findings);
  const result = { file, ...(network !== undefined && { network }), findings };
  if (inlined === undefined || fromFolder === undefined || version === undefined) return result;
  const plugins = [...inlined, ...fromFolder.plugins];
  if (plugins.length === 0) {
    const where = folder === undefined ? '' : ` (none in "plugins" and no *.conf in ${folder.folder})`;
    add({ severity: 'error', field: 'plugins', message: `missing: a list needs at least one plugin${where}` });
    return result;
  }
  if (plugins.length > 1 && compareVersions(version, '0.3.0') < 0) {
    add({ severity: 'error', field: 'cniVersion', message: `${version} has no chaining: a list of several plugins needs 0.3.0 or later (prevResult)` });
  }
  const list: NetworkConfigList = {
    name: network ?? 'invalid-name',
    cniVersion: version,
    disableCheck: false,
    disableGC: false,
    loadOnlyInlinedPlugins: inlinedOnly,
    plugins,
  };
  const addFor = (i: number): Add => (i < inlined.length ? add : (fromFolder.adds[i - inlined.length] as Add));
  plugins.forEach((_, i) => checkPlugin(list, i, o, addFor(i)));
  const declared = new Set(plugins.flatMap(declaredCapabilities));
  for (const [cap, source] of Object.entries(o.capabilitySources ?? {})) {
    if (!declared.has(cap)) {
      add({
        severity: 'error',
        field: 'plugins',
        message: `${source} sets the ${cap} capability, but no plugin declares it ("capabilities": {"${cap}": true}): the runtime passes it to no plugin`,
      });
    }
  }
  return result;
}

const isConfigFile = (file: string): boolean => [...LIST_EXTENSIONS, ...SINGLE_EXTENSIONS].includes(extname(file));

/**
 * Several files, as a conf dir holds them (`files` in any order): each one judged, plus what
 * only the directory shows: a network defined twice is found by libcni in the first file only.
 */
export function validateFiles(files: readonly { file: string; text: string }[], o: ValidateOptions = {}): Report {
  const reports = files.filter((f) => isConfigFile(f.file)).map((f) => validateText(f.file, f.text, o));
  // libcni's lookup order: lists first, then single configs, each in file-name order.
  const order = (r: FileReport) => (LIST_EXTENSIONS.includes(extname(r.file)) ? 0 : 1);
  const byLookup = [...reports].sort((a, b) => order(a) - order(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const first = new Map<string, string>();
  const shadowed = new Map<string, Finding>();
  for (const r of byLookup) {
    if (r.network === undefined) continue;
    const winner = first.get(r.network);
    if (winner === undefined) first.set(r.network, r.file);
    else {
      shadowed.set(r.file, {
        severity: 'warning',
        file: r.file,
        field: 'name',
        message: `network "${r.network}" is also defined in ${winner}, which libcni finds first: this file is never used`,
      });
    }
  }
  const withDir = reports.map((r) => {
    const s = shadowed.get(r.file);
    return s === undefined ? r : { ...r, findings: [...r.findings, s] };
  });
  return summarize(withDir);
}

export function summarize(files: readonly FileReport[]): Report {
  const all = files.flatMap((f) => f.findings);
  const errors = all.filter((f) => f.severity === 'error').length;
  return { valid: errors === 0 && files.length > 0, errors, warnings: all.filter((f) => f.severity === 'warning').length, files };
}

/** `file: plugins[1] (portmap): runtimeConfig.portMappings[0].hostPort: error: …` */
export function formatFinding(f: Finding): string {
  const where = [f.file, ...(f.plugin !== undefined ? [`plugins[${f.plugin}] (${f.type ?? '?'})`] : []), ...(f.field !== '' ? [f.field] : [])];
  return `${where.join(': ')}: ${f.severity}: ${f.message}`;
}

export function formatReport(r: Report): string[] {
  const lines = r.files.flatMap((f) =>
    f.findings.length === 0 ? [`${f.file}: ok${f.network !== undefined ? ` (network "${f.network}")` : ''}`] : f.findings.map(formatFinding),
  );
  if (r.files.length === 0) lines.push('no network config file (*.conflist, *.conf, *.json) to validate');
  lines.push(`${r.valid ? 'valid' : 'invalid'}: ${r.files.length} file(s), ${r.errors} error(s), ${r.warnings} warning(s)`);
  return lines;
}
