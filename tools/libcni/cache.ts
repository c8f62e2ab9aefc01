// libcni's result cache (https://github.com/containernetworking/cni/blob/v1.3.0/libcni/api.go): <dir>/results/<network>-<containerId>-<ifname>.
// We write the same format so cnitool and our CLI can follow each other's DEL.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RuntimeConf } from './api.ts';

export const DEFAULT_CACHE_DIR = '/var/lib/cni';

function cacheFile(dir: string, network: string, conf: RuntimeConf): string {
  return join(dir, 'results', `${network}-${conf.containerId}-${conf.ifname}`);
}

/** What libcni caches after ADD: the network's config as given, and the result. */
export interface CachedAdd {
  readonly network: string;
  readonly configBytes: Buffer;
  readonly result: unknown;
}

export function saveResult(dir: string, conf: RuntimeConf, { network, configBytes, result }: CachedAdd): void {
  const file = cacheFile(dir, network, conf);
  mkdirSync(join(dir, 'results'), { recursive: true, mode: 0o700 });
  const entry = {
    kind: 'cniCacheV1',
    containerId: conf.containerId,
    config: configBytes.toString('base64'),
    ifName: conf.ifname,
    networkName: network,
    netns: conf.netns,
    cniArgs: conf.args ?? [],
    capabilityArgs: conf.capabilityArgs ?? {},
    result,
  };
  writeFileSync(`${file}.tmp`, JSON.stringify(entry), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/** The cached ADD result; undefined when there is none or it cannot be read (DEL must go on then). */
export function loadResult(dir: string, network: string, conf: RuntimeConf): unknown {
  let text: string;
  try {
    text = readFileSync(cacheFile(dir, network, conf), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const entry = JSON.parse(text) as { kind?: string; result?: unknown };
    // Anything that is not a v1 entry is a legacy raw result.
    return entry.kind === 'cniCacheV1' ? entry.result : entry;
  } catch {
    return undefined;
  }
}

export function deleteResult(dir: string, network: string, conf: RuntimeConf): void {
  rmSync(cacheFile(dir, network, conf), { force: true });
}
