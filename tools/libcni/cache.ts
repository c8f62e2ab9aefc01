// libcni's result cache (https://github.com/containernetworking/cni/blob/v1.3.0/libcni/api.go): <dir>/results/<network>-<containerId>-<ifname>.
// We write the same file names and JSON so cnitool (or a runtime built on libcni) and our CLI
// can CHECK and DEL each other's attachments.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { convertResult, parseResult } from '../../lib/cni-spec/index.ts';
import type { RuntimeConf } from './api.ts';

export const DEFAULT_CACHE_DIR = '/var/lib/cni';

export function cacheFile(dir: string, network: string, conf: Pick<RuntimeConf, 'containerId' | 'ifname'>): string {
  return join(dir, 'results', `${network}-${conf.containerId}-${conf.ifname}`);
}

/** What libcni caches after ADD: the network's config as given, and the result. */
export interface CachedAdd {
  readonly network: string;
  readonly configBytes: Buffer;
  readonly result: unknown;
}

/** A cache file that exists but cannot be used (libcni: CHECK fails on it, DEL goes on without it). */
export class CacheError extends Error {
  override name = 'CacheError';
}

export function saveResult(dir: string, conf: RuntimeConf, { network, configBytes, result }: CachedAdd): void {
  const file = cacheFile(dir, network, conf);
  mkdirSync(join(dir, 'results'), { recursive: true, mode: 0o700 });
  // Field order and omitempty as Go's cachedInfo marshals them.
  const entry = {
    kind: 'cniCacheV1',
    containerId: conf.containerId,
    config: configBytes.toString('base64'),
    ifName: conf.ifname,
    networkName: network,
    ...(conf.netns !== '' && { netns: conf.netns }),
    ...(conf.args !== undefined && conf.args.length > 0 && { cniArgs: conf.args }),
    ...(conf.capabilityArgs !== undefined && Object.keys(conf.capabilityArgs).length > 0 && { capabilityArgs: conf.capabilityArgs }),
    ...(result !== undefined && result !== null && { result }),
  };
  writeFileSync(`${file}.tmp`, JSON.stringify(entry), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/**
 * The cached ADD result in `cniVersion` (libcni converts it to the config's version, so a
 * plugin gets prevResult in the version of its config); undefined when there is no file.
 * Throws CacheError when the file is there but holds no usable result.
 */
export function loadResult(dir: string, network: string, conf: Pick<RuntimeConf, 'containerId' | 'ifname'>, cniVersion?: string): unknown {
  const file = cacheFile(dir, network, conf);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let raw: unknown;
  try {
    const entry = JSON.parse(text) as { kind?: string; result?: unknown };
    // Anything that is not a v1 entry is a legacy raw result.
    raw = entry.kind === 'cniCacheV1' ? entry.result : entry;
  } catch (err) {
    throw new CacheError(`failed to get network "${network}" cached result: ${file}: ${(err as Error).message}`, { cause: err });
  }
  if (cniVersion === undefined || raw === undefined || raw === null) return raw;
  try {
    const own = (raw as { cniVersion?: unknown }).cniVersion;
    const result = parseResult(raw, typeof own === 'string' && own !== '' ? own : cniVersion);
    return own === cniVersion ? raw : convertResult(result, cniVersion);
  } catch (err) {
    throw new CacheError(`failed to convert cached result to config version "${cniVersion}": ${(err as Error).message}`, { cause: err });
  }
}

/** The network config bytes the ADD of this attachment cached (libcni's GetNetworkListCachedConfig); undefined when there are none. */
export function loadCachedConfig(dir: string, network: string, conf: Pick<RuntimeConf, 'containerId' | 'ifname'>): Buffer | undefined {
  try {
    const entry = JSON.parse(readFileSync(cacheFile(dir, network, conf), 'utf8')) as { kind?: string; config?: unknown };
    return entry.kind === 'cniCacheV1' && typeof entry.config === 'string' && entry.config !== '' ? Buffer.from(entry.config, 'base64') : undefined;
  } catch {
    return undefined;
  }
}

export function deleteResult(dir: string, network: string, conf: Pick<RuntimeConf, 'containerId' | 'ifname'>): void {
  rmSync(cacheFile(dir, network, conf), { force: true });
}

/** One attachment as libcni's GetCachedAttachments lists it. */
export interface CachedAttachment {
  readonly containerId: string;
  readonly network: string;
  readonly ifname: string;
  readonly netns: string;
  readonly args: readonly (readonly [string, string])[];
  readonly capabilityArgs: Readonly<Record<string, unknown>>;
}

function parseAttachment(text: string): CachedAttachment | undefined {
  let e: unknown;
  try {
    e = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof e !== 'object' || e === null || (e as Record<string, unknown>)['kind'] !== 'cniCacheV1') return undefined;
  const { containerId, networkName, ifName, netns, cniArgs, capabilityArgs } = e as Record<string, unknown>;
  if (typeof ifName !== 'string' || ifName === '' || typeof networkName !== 'string' || networkName === '') return undefined;
  return {
    containerId: typeof containerId === 'string' ? containerId : '',
    network: networkName,
    ifname: ifName,
    netns: typeof netns === 'string' ? netns : '',
    args: Array.isArray(cniArgs) ? (cniArgs as [string, string][]) : [],
    capabilityArgs: typeof capabilityArgs === 'object' && capabilityArgs !== null ? (capabilityArgs as Record<string, unknown>) : {},
  };
}

/** The cache entry of one attachment, when there is a readable v1 one. */
export function cachedAttachment(dir: string, network: string, conf: Pick<RuntimeConf, 'containerId' | 'ifname'>): CachedAttachment | undefined {
  try {
    return parseAttachment(readFileSync(cacheFile(dir, network, conf), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Every readable v1 entry of the results dir, in file-name order; others are skipped as libcni does. */
export function cachedAttachments(dir: string): CachedAttachment[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, 'results')).sort();
  } catch {
    return [];
  }
  const out: CachedAttachment[] = [];
  for (const name of names) {
    let text: string;
    try {
      text = readFileSync(join(dir, 'results', name), 'utf8');
    } catch {
      continue;
    }
    const a = parseAttachment(text);
    if (a !== undefined) out.push(a);
  }
  return out;
}
