// The reference libcni client, cnitool (built from Debian's CNI source package by
// scripts/build/build-cnitool.sh), run the way the tests drive it: clean environment, NETCONFPATH and
// CNI_PATH of the test's own, CAP_ARGS for capability args, inside the netns that plays the node.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { BASE_ENV } from './plugins.ts';
import { inNetns, tryRun, withBindsOver } from '../../test-support/sh.ts';

export const CNITOOL = process.env['CNITOOL'] ?? resolve(import.meta.dirname, '..', '..', '.cache', 'cnitool');

/** Why cnitool cannot run: a missing prerequisite, which fails a test (npm test builds it), never skips it. */
export const cnitoolMissing: string | undefined = existsSync(CNITOOL)
  ? undefined
  : `cnitool not built: ${CNITOOL} is missing (npm test builds it; by hand: bash scripts/build/build-cnitool.sh ${CNITOOL})`;

/** The container id cnitool gives a pod: "cnitool-" and the first 10 bytes of SHA-512 of the netns path, in hex. */
export function cnitoolContainerId(netnsPath: string): string {
  return `cnitool-${createHash('sha512').update(netnsPath).digest('hex').slice(0, 20)}`;
}

/** libcni's cache dir, fixed in cnitool (it has no flag or variable for it). */
export const CNITOOL_CACHE_DIR = '/var/lib/cni';

export interface CnitoolRun {
  /** directory of network config files (NETCONFPATH) */
  readonly confDir: string;
  /** plugin directories (CNI_PATH) */
  readonly cniPath: readonly string[];
  /** netns that plays the node: cnitool (and so the plugins) run inside it */
  readonly nodeNetns?: string;
  /** capability args (CAP_ARGS) */
  readonly capArgs?: Readonly<Record<string, unknown>>;
  /**
   * A directory to serve as cnitool's result cache instead of the machine's /var/lib/cni:
   * bind-mounted over it in a mount namespace of cnitool's own, so the cache files of this
   * run are the test's alone (cni-run can then use the same dir with --cache-dir).
   */
  readonly cacheDir?: string;
  /** directories bind-mounted over others, in order, in cnitool's own mount namespace (before cacheDir's) */
  readonly binds?: readonly (readonly [source: string, target: string])[];
}

/** `cnitool VERB NETWORK NETNS`; a failure is an answer (exit code and output). */
export function cnitool(o: CnitoolRun, verb: string, network: string, netnsPath: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Object.entries({
    ...BASE_ENV,
    NETCONFPATH: o.confDir,
    CNI_PATH: o.cniPath.join(':'),
    ...(o.capArgs && { CAP_ARGS: JSON.stringify(o.capArgs) }),
  }).map(([k, v]) => `${k}=${v}`);
  const cmd = [...(o.nodeNetns === undefined ? [] : inNetns(o.nodeNetns)), 'env', '-i', ...env, CNITOOL, verb, network, netnsPath];
  const binds = [...(o.binds ?? [])];
  if (o.cacheDir !== undefined) {
    mkdirSync(o.cacheDir, { recursive: true });
    mkdirSync(CNITOOL_CACHE_DIR, { recursive: true }); // the mount point; libcni makes it on any run anyway
    binds.push([o.cacheDir, CNITOOL_CACHE_DIR]);
  }
  const own = binds.length === 0 ? cmd : withBindsOver(binds, cmd);
  return tryRun(own[0] as string, own.slice(1));
}
