// A pod's attachment made by either runtime CLI the suite drives: our cni-run or the reference
// cnitool. Both find the network by name in one conf dir, run the plugins of one plugin dir
// inside the node netns, name the pod alike (cnitool's id, derived from the netns path) and keep
// libcni's result cache in one dir of the test's, so the assertions after them are the same.
import { join } from 'node:path';
import { cniRun, type CniRunOutput } from './cni-run.ts';
import { cnitool, cnitoolContainerId } from './cnitool.ts';

export const RUNTIME_CLIS = ['cni-run', 'cnitool'] as const;
export type RuntimeCli = (typeof RUNTIME_CLIS)[number];

export interface NetworkOnNode {
  readonly runtime: RuntimeCli;
  readonly network: string;
  readonly confDir: string;
  readonly cacheDir: string;
  readonly pluginDir: string;
  readonly nodeNetns: string;
}

export interface HostPort {
  readonly hostPort: number;
  readonly containerPort: number;
}

export interface PodAttachment {
  readonly containerId: string;
  /** libcni's cache file of the attachment */
  readonly cacheFile: string;
  add(ports?: readonly HostPort[]): Promise<CniRunOutput>;
  check(): Promise<CniRunOutput>;
  del(): Promise<CniRunOutput>;
}

export function podAttachment(n: NetworkOnNode, netnsPath: string): PodAttachment {
  const containerId = cnitoolContainerId(netnsPath);
  const cacheFile = join(n.cacheDir, 'results', `${n.network}-${containerId}-eth0`);
  // cnitool is given the pod's capability args on every verb, as a runtime gives its config;
  // cni-run takes them from the cache after ADD.
  let capArgs: Record<string, unknown> | undefined;
  const verb = (v: string, flags: readonly string[] = []): Promise<CniRunOutput> =>
    n.runtime === 'cnitool'
      ? cnitool(
          { confDir: n.confDir, cniPath: [n.pluginDir], nodeNetns: n.nodeNetns, cacheDir: n.cacheDir, ...(capArgs && { capArgs }) },
          v,
          n.network,
          netnsPath,
        )
      : cniRun([v, n.network, netnsPath, '--conf-dir', n.confDir, '--plugin-dir', n.pluginDir, '--cache-dir', n.cacheDir, ...flags], {
          nodeNetns: n.nodeNetns,
        });
  return {
    containerId,
    cacheFile,
    add(ports = []) {
      const mappings = ports.map((p) => ({ hostPort: p.hostPort, containerPort: p.containerPort, protocol: 'tcp' }));
      capArgs = mappings.length > 0 ? { portMappings: mappings } : undefined;
      return verb(
        'add',
        ports.flatMap((p) => ['--port', `${p.hostPort}:${p.containerPort}/tcp`]),
      );
    },
    check: () => verb('check'),
    del: () => verb('del'),
  };
}
