// Finding a network by name in a configuration directory the way libcni's LoadConfList does
// (https://github.com/containernetworking/cni/blob/v1.3.0/libcni/conf.go): first the
// *.conflist files in lexical order, the first whose name matches; then (the deprecated form)
// the single-plugin *.conf and *.json files, up-converted to a list of one. A file that cannot
// be parsed on the way stops the search, as in libcni: the network it would have found may
// well be the broken one.
//
// A list read from a file also gets the plugin configs of the folder named after its network
// beside the file, `<dir>/<name>/*.conf`, after its own `plugins`, unless it sets
// `loadOnlyInlinedPlugins` (libcni v1.3, https://github.com/containernetworking/cni/pull/1052).
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { ConfigListError, confListFromConf, decodeConflist, pluginConf, requirePlugins, withPlugins, type NetworkConfigList } from './conflist.ts';

export const DEFAULT_CONF_DIR = '/etc/cni/net.d';
export const LIST_EXTENSIONS: readonly string[] = ['.conflist'];
export const SINGLE_EXTENSIONS: readonly string[] = ['.conf', '.json'];
/** the files of a network's plugin folder that libcni reads (NetworkPluginConfsFromFiles: .conf only) */
export const PLUGIN_EXTENSIONS: readonly string[] = ['.conf'];

export interface LoadedNetwork {
  readonly list: NetworkConfigList;
  /** what libcni caches as the network's config: the list's bytes */
  readonly bytes: Buffer;
  /** the file it came from */
  readonly file: string;
}

/** A network of a conf dir, for messages: its name, or why its file could not be read. */
export interface NetworkEntry {
  readonly file: string;
  readonly name?: string;
  readonly error?: string;
}

export class NetworkNotFoundError extends Error {
  constructor(
    readonly network: string,
    readonly dir: string,
    /** what is there instead (empty: nothing, or no such directory) */
    readonly available: readonly NetworkEntry[],
    readonly dirMissing: boolean,
  ) {
    super(dirMissing ? `no net configurations found in ${dir}: no such directory` : `no net configuration with name "${network}" in ${dir}`);
    this.name = 'NetworkNotFoundError';
  }
}

/** The regular files of `dir` with one of `extensions`, sorted by name; [] when there is no dir. */
export function confFiles(dir: string, extensions: readonly string[]): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => extensions.includes(extname(n)))
    .map((n) => join(dir, n))
    .filter((f) => {
      try {
        return !statSync(f).isDirectory();
      } catch {
        return false;
      }
    })
    .sort();
}

// Go's filepath.Ext: from the last dot on, so a file named just ".conf" counts (Node's extname says "").
const goExt = (name: string): string => {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot);
};

/**
 * libcni's ConfFiles as NetworkPluginConfsFromFiles uses it on a network's folder: no folder is
 * no plugins, but a folder that cannot be read is an error (the network would run short of
 * plugins). Entries are judged by their own type, as Go's ReadDir gives it: a symlink to a
 * directory is taken, and then fails to read, as in libcni. Sorted by name, as ReadDir sorts.
 */
export function pluginConfFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new ConfigListError(`failed to read plugin config files in ${dir}: ${(err as Error).message}`, { cause: err });
  }
  return entries
    .filter((e) => !e.isDirectory() && PLUGIN_EXTENSIONS.includes(goExt(e.name)))
    .map((e) => join(dir, e.name))
    .sort();
}

/** The plugin configs of `folder`, in file-name order; an error names the file. */
export function folderPlugins(folder: string): Record<string, unknown>[] {
  return pluginConfFiles(folder).map((file) => {
    const bytes = readOrThrow(file);
    return inFile(file, () => {
      let raw: unknown;
      try {
        raw = JSON.parse(bytes.toString());
      } catch (err) {
        throw new ConfigListError(`error parsing configuration: ${(err as Error).message}`, { cause: err });
      }
      return pluginConf(raw);
    });
  });
}

/**
 * libcni's NetworkConfFromFile on a list's bytes: its own plugins, then (unless
 * `loadOnlyInlinedPlugins`) those of `<dir>/<name>/`; none at all is an error. `dir` is the
 * directory the list file is in.
 */
export function listWithFolder(bytes: Buffer, dir: string): NetworkConfigList {
  const list = decodeConflist(bytes);
  if (list.loadOnlyInlinedPlugins) return requirePlugins(list);
  const folder = join(dir, list.name);
  return requirePlugins(withPlugins(list, folderPlugins(folder)), `: none in "plugins" and no *.conf in ${folder}`);
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

const isList = (file: string): boolean => LIST_EXTENSIONS.includes(extname(file));

/**
 * One file as a network: a .conflist is a list; a .conf or .json is a single plugin's config
 * unless it holds a `plugins` array (a list saved under another extension, accepted when the
 * file is named directly). Errors name the file.
 */
export function loadNetworkFile(file: string): LoadedNetwork {
  const bytes = readOrThrow(file);
  return inFile(file, () =>
    isList(file) || holdsPlugins(bytes) ? { list: listWithFolder(bytes, dirname(file)), bytes, file } : { ...confListFromConf(bytes), file },
  );
}

function holdsPlugins(bytes: Buffer): boolean {
  try {
    const raw = JSON.parse(bytes.toString()) as unknown;
    return typeof raw === 'object' && raw !== null && Array.isArray((raw as Record<string, unknown>)['plugins']);
  } catch {
    return false;
  }
}

/** The name a network file declares, without judging the rest of it. */
function declaredName(file: string): NetworkEntry {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    const name = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)['name'] : undefined;
    return typeof name === 'string' ? { file, name } : { file, error: 'no name' };
  } catch (err) {
    return { file, error: (err as Error).message };
  }
}

/** Every network file of `dir` in the order libcni looks at them. */
export function listNetworks(dir: string): NetworkEntry[] {
  return [...confFiles(dir, LIST_EXTENSIONS), ...confFiles(dir, SINGLE_EXTENSIONS)].map(declaredName);
}

function readOrThrow(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigListError(`${file}: ${(err as Error).message}`, { cause: err });
  }
}

function inFile<T>(file: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new ConfigListError(`${file}: ${(err as Error).message}`, { cause: err });
  }
}

export function loadNetwork(dir: string, name: string): LoadedNetwork {
  for (const file of confFiles(dir, LIST_EXTENSIONS)) {
    const bytes = readOrThrow(file);
    // Like libcni, each list is loaded whole, folder included, before its name is compared.
    const list = inFile(file, () => listWithFolder(bytes, dir));
    if (list.name === name) return { list, bytes, file };
  }
  for (const file of confFiles(dir, SINGLE_EXTENSIONS)) {
    const bytes = readOrThrow(file);
    // libcni's ConfFromBytes wants valid JSON with a type, nothing more, before it compares names.
    const net = inFile(file, () => {
      const conf = JSON.parse(bytes.toString()) as unknown;
      const fields = typeof conf === 'object' && conf !== null ? (conf as Record<string, unknown>) : {};
      if (typeof fields['type'] !== 'string' || fields['type'] === '') throw new ConfigListError("error parsing configuration: missing 'type'");
      return fields['name'] === name ? confListFromConf(bytes) : undefined;
    });
    if (net !== undefined) return { ...net, file };
  }
  const dirMissing = !isDirectory(dir);
  throw new NetworkNotFoundError(name, dir, dirMissing ? [] : listNetworks(dir), dirMissing);
}
