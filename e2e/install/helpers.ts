// What the installer tests share: running a build's `cni-ts install`, a Kubernetes chain
// (bridge + host-local, portmap, bandwidth: conf-examples/k8s-node.conflist) run by cnitool from
// the directory the installer filled, and the files a directory holds with their digests.
import { createHash } from 'node:crypto';
import { closeSync, lstatSync, openSync, readdirSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { cnitool } from '../helpers/cnitool.ts';
import { makeNetns, type TestNetns } from '../helpers/netns.ts';
import { BASE_ENV, tempDir } from '../helpers/plugins.ts';
import { tryRun } from '../../test-support/sh.ts';

export const MANIFEST = '.cni-ts-manifest.json';

/** `<dir>/cni-ts install ARGS` with a clean environment (the build's own installer). */
export function cniTsInstall(dir: string, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return tryRun('env', ['-i', ...Object.entries(BASE_ENV).map(([k, v]) => `${k}=${v}`), join(dir, 'cni-ts'), 'install', ...args]);
}

export function sha256(path: string): string {
  const h = createHash('sha256');
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  try {
    for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/** Every entry of `dir` (hidden ones too) → the digest of a regular file, or what it is. */
export function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).sort()) {
    const st = lstatSync(join(dir, f));
    out[f] = st.isFile() ? sha256(join(dir, f)) : st.isSymbolicLink() ? 'symlink' : 'other';
  }
  return out;
}

/** What a build's source dir installs: the programs (dist/bun/bin holds the binary and the starter's links). */
export function expectedFrom(source: string): Record<string, string> {
  return contents(source);
}

export interface Chain {
  readonly node: TestNetns;
  readonly confDir: string;
  readonly dataDir: string;
  readonly cacheDir: string;
  readonly network: string;
  readonly subnet: string;
}

/** The Kubernetes chain on a node netns of its own; `n` sets the subnet (10.<n>.0.0/24) and the bridge name. */
export async function k8sChain(t: Test, n: number, tag: string): Promise<Chain> {
  const node = await makeNetns(t, `inst-node-${tag}`);
  const confDir = tempDir(t, 'cnits-inst-conf-');
  const dataDir = tempDir(t, 'cnits-inst-ipam-');
  const cacheDir = tempDir(t, 'cnits-inst-cache-');
  const network = `inst-${tag}`;
  const subnet = `10.${n}.0.0/24`;
  const list = {
    // Debian's libcni (cnitool) knows spec versions up to 1.0.0
    cniVersion: '1.0.0',
    name: network,
    plugins: [
      {
        type: 'bridge',
        bridge: `cnii${tag}`,
        isGateway: true,
        ipMasq: true,
        hairpinMode: true,
        ipam: { type: 'host-local', dataDir, ranges: [[{ subnet }]], routes: [{ dst: '0.0.0.0/0' }] },
      },
      { type: 'portmap', capabilities: { portMappings: true }, snat: true },
      { type: 'bandwidth', capabilities: { bandwidth: true } },
    ],
  };
  writeFileSync(join(confDir, `10-${network}.conflist`), JSON.stringify(list));
  return { node, confDir, dataDir, cacheDir, network, subnet };
}

/** One chain call through cnitool from the plugin dir `bin`, for pod number `k` (its own hostPort). */
export function chainCall(c: Chain & { bin: string }, verb: 'add' | 'del' | 'check', pod: TestNetns, k: number) {
  const { bin } = c;
  return cnitool(
    {
      confDir: c.confDir,
      cniPath: [bin],
      nodeNetns: c.node.name,
      cacheDir: c.cacheDir,
      capArgs: {
        portMappings: [{ hostPort: 18080 + k, containerPort: 80, protocol: 'tcp' }],
        bandwidth: { ingressRate: 10_000_000, ingressBurst: 1_000_000, egressRate: 10_000_000, egressBurst: 1_000_000 },
      },
    },
    verb,
    c.network,
    pod.path,
  );
}

export interface Load {
  /** calls made so far */
  calls(): number;
  /** each failed call: verb, pod, exit code and output */
  readonly failed: string[];
  /** ends the loops after their current call, then DELs every pod once more (counted) */
  stop(): Promise<void>;
}

/** ADD then DEL of each pod in a loop, every pod at once, through the plugins of `bin`. */
export async function startLoad(t: Test, c: Chain, bin: string, pods: number): Promise<Load> {
  const ns = await Promise.all(Array.from({ length: pods }, () => makeNetns(t, 'inst-pod')));
  let calls = 0;
  let stopped = false;
  const failed: string[] = [];
  const call = async (verb: 'add' | 'del', k: number) => {
    const pod = ns[k] as TestNetns;
    const r = await chainCall({ ...c, bin }, verb, pod, k);
    calls++;
    if (r.code !== 0) failed.push(`${verb} pod ${k}: exit ${r.code}: ${r.stdout.trim()} ${r.stderr.trim()}`.slice(0, 600));
  };
  const loops = ns.map(async (_, k) => {
    while (!stopped) {
      await call('add', k);
      await call('del', k);
    }
  });
  return {
    calls: () => calls,
    failed,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
      await Promise.all(ns.map((_, k) => call('del', k)));
    },
  };
}

/** Waits until the load has made `n` more calls. */
export async function afterCalls(load: Load, n: number): Promise<void> {
  const until = load.calls() + n;
  while (load.calls() < until) await new Promise((r) => setTimeout(r, 50));
}
