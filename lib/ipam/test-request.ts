// Builds the CniRequest the dispatcher would hand a plugin, for unit tests of lib/ipam.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCniVersion, parseResult, type CniRequest, type Verb } from '../cni-spec/index.ts';

export interface RequestOptions {
  command?: Verb;
  containerId?: string;
  ifname?: string;
  netns?: string;
  args?: string;
  path?: string[];
  env?: Record<string, string>;
}

export function makeRequest(config: Record<string, unknown>, o: RequestOptions = {}): CniRequest {
  const v = config['cniVersion'];
  const cniVersion = isCniVersion(v) ? v : '0.1.0';
  const containerId = o.containerId ?? 'ctr1';
  const ifname = o.ifname ?? 'eth0';
  const netns = o.netns ?? '/run/netns/unused';
  const args = o.args ?? '';
  const path = o.path ?? [];
  const command = o.command ?? 'ADD';
  const env: Record<string, string> = {
    PATH: '/usr/sbin:/usr/bin:/sbin:/bin',
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerId,
    CNI_NETNS: netns,
    CNI_IFNAME: ifname,
    CNI_PATH: path.join(':'),
    ...(args !== '' && { CNI_ARGS: args }),
    ...o.env,
  };
  const prev = config['prevResult'];
  return {
    command,
    containerId,
    netns,
    ifname,
    args,
    path,
    env,
    stdin: Buffer.from(JSON.stringify(config)),
    config,
    cniVersion,
    name: typeof config['name'] === 'string' ? config['name'] : 'net',
    ...(prev !== undefined && { prevResult: parseResult(prev, cniVersion) }),
  };
}

/** A temporary directory removed when the test ends. */
export function tempDir(t: { teardown(fn: () => void): void }, prefix = 'cnits-ipam-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
