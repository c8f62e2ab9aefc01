// Parsing of a network configuration list the way libcni does it
// (https://github.com/containernetworking/cni/blob/v1.3.0/libcni/conf.go, https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#section-1-network-configuration-format),
// so our runtime-side tools see the same list a real runtime would.
import { ALL_VERSIONS, compareVersions } from '../../lib/cni-spec/versions.ts';

export interface NetworkConfigList {
  readonly name: string;
  /** the version the runtime selected: the highest of cniVersion ∪ cniVersions it implements */
  readonly cniVersion: string;
  readonly disableCheck: boolean;
  readonly disableGC: boolean;
  /** only the `plugins` written in the list run, none from the folder named after the network (libcni v1.3) */
  readonly loadOnlyInlinedPlugins: boolean;
  readonly plugins: readonly Record<string, unknown>[];
}

export class ConfigListError extends Error {}

const NAME_RE = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;
const NEWEST = ALL_VERSIONS[ALL_VERSIONS.length - 1] as string;

// libcni accepts JSON booleans and the strings "true"/"false" in any case.
function flag(raw: Record<string, unknown>, key: string): boolean {
  const v = raw[key];
  if (v === undefined) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw new ConfigListError(`error parsing configuration list: invalid ${key} value ${JSON.stringify(v)}`);
}

/** Whether `v` is newer than the newest version we implement; an unparsable version is a config error. */
function newerThanOurs(v: string, what: string): boolean {
  try {
    return compareVersions(v, NEWEST) > 0;
  } catch (err) {
    throw new ConfigListError(`error parsing configuration list: invalid ${what}: ${(err as Error).message}`, { cause: err });
  }
}

// libcni's ConfListFromBytes: with a cniVersions list, the highest of it and cniVersion that
// libcni implements; versions newer than ours are skipped, cniVersion too (a list saying
// "1.2.0" with cniVersions ["1.1.0"] runs at 1.1.0). Without the list, cniVersion as it is.
function selectVersion(raw: Record<string, unknown>): string {
  const declared = raw['cniVersion'];
  if (declared !== undefined && typeof declared !== 'string') {
    throw new ConfigListError('error parsing configuration list: invalid cniVersion type');
  }
  const listed = raw['cniVersions'];
  if (listed === undefined) return declared || '0.1.0';
  if (!Array.isArray(listed) || listed.some((v) => typeof v !== 'string')) {
    throw new ConfigListError('error parsing configuration list: cniVersions must be a list of strings');
  }
  const candidates = (listed as string[]).filter((v) => !newerThanOurs(v, 'version in cniVersions'));
  if (declared && !newerThanOurs(declared, 'cniVersion')) candidates.push(declared);
  if (candidates.length === 0) return declared || '0.1.0';
  return candidates.reduce((a, b) => (compareVersions(a, b) >= 0 ? a : b));
}

function decode(bytes: Buffer | string, what: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString());
  } catch (err) {
    throw new ConfigListError(`error parsing ${what}: ${(err as Error).message}`, { cause: err });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigListError(`error parsing ${what}: not a JSON object`);
  return raw as Record<string, unknown>;
}

/**
 * A single-plugin config (a .conf or .json file) as the list of one that libcni's
 * ConfListFromConf makes of it; `bytes` is that list's JSON, which is what gets cached.
 */
export function confListFromConf(confBytes: Buffer | string): { list: NetworkConfigList; bytes: Buffer } {
  const conf = decode(confBytes, 'configuration');
  if (typeof conf['type'] !== 'string' || conf['type'] === '') throw new ConfigListError("error parsing configuration: missing 'type'");
  const bytes = Buffer.from(JSON.stringify({ name: conf['name'] ?? '', cniVersion: conf['cniVersion'] ?? '', plugins: [conf] }));
  return { list: parseConflist(bytes), bytes };
}

/**
 * One plugin's configuration, inlined or from a file of the network's folder: libcni's
 * NetworkPluginConfFromBytes wants a JSON object with a `type`, nothing more.
 */
export function pluginConf(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigListError('error parsing configuration: not a JSON object');
  const type = (raw as Record<string, unknown>)['type'];
  if (typeof type !== 'string' || type === '') throw new ConfigListError("error parsing configuration: missing 'type'");
  return raw as Record<string, unknown>;
}

/**
 * libcni's NetworkConfFromBytes: the list as written. Without a `plugins` key (allowed unless
 * `loadOnlyInlinedPlugins`) its plugins are all to come from the network's folder, so the
 * list may have none yet; a `plugins` key that is there must hold at least one.
 */
export function decodeConflist(bytes: Buffer | string): NetworkConfigList {
  const obj = decode(bytes, 'configuration list');
  const name = obj['name'];
  if (typeof name !== 'string' || name === '') throw new ConfigListError('error parsing configuration list: no name');
  if (!NAME_RE.test(name)) throw new ConfigListError(`invalid network name ${JSON.stringify(name)}`);
  const loadOnlyInlinedPlugins = flag(obj, 'loadOnlyInlinedPlugins');
  const plugins = obj['plugins'];
  let inlined: Record<string, unknown>[] = [];
  if (plugins === undefined) {
    if (loadOnlyInlinedPlugins) throw new ConfigListError("error parsing configuration list: `loadOnlyInlinedPlugins` is true, and no 'plugins' key");
  } else {
    if (!Array.isArray(plugins)) throw new ConfigListError("error parsing configuration list: invalid 'plugins' type");
    if (plugins.length === 0) throw new ConfigListError('error parsing configuration list: no plugins in list');
    inlined = plugins.map(pluginConf);
  }
  return Object.freeze({
    name,
    cniVersion: selectVersion(obj),
    disableCheck: flag(obj, 'disableCheck'),
    disableGC: flag(obj, 'disableGC'),
    loadOnlyInlinedPlugins,
    plugins: inlined,
  });
}

/** The list with the plugins of its folder after its own, as libcni's NetworkConfFromFile appends them. */
export function withPlugins(list: NetworkConfigList, more: readonly Record<string, unknown>[]): NetworkConfigList {
  return Object.freeze({ ...list, plugins: [...list.plugins, ...more] });
}

/** A list that must be runnable from its bytes alone (no folder to add to it): at least one plugin. */
export function parseConflist(bytes: Buffer | string): NetworkConfigList {
  return requirePlugins(decodeConflist(bytes));
}

/** libcni's last word in NetworkConfFromFile: a network with no plugin at all cannot run. */
export function requirePlugins(list: NetworkConfigList, where = ''): NetworkConfigList {
  if (list.plugins.length === 0) throw new ConfigListError(`no plugin configs found${where}`);
  return list;
}
