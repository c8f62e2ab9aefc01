// For unit tests of a plugin's config parsing: the CniRequest the dispatcher builds for a
// config on stdin (name net1, container c1, eth0 in /run/netns/x), without running one.
import type { CniRequest } from './dispatch.ts';
import type { Result } from './result.ts';
import type { CniVersion } from './versions.ts';

export interface TestRequestOptions {
  readonly command?: CniRequest['command'];
  readonly cniVersion?: CniVersion;
  /** CNI_ARGS */
  readonly args?: string;
  readonly prevResult?: Result;
}

export function testRequest(type: string, config: Record<string, unknown>, o: TestRequestOptions = {}): CniRequest {
  const cniVersion: CniVersion = o.cniVersion ?? '1.1.0';
  const full = { cniVersion, name: 'net1', type, ...config };
  return {
    command: o.command ?? 'ADD',
    containerId: 'c1',
    netns: '/run/netns/x',
    ifname: 'eth0',
    args: o.args ?? '',
    path: [],
    env: {},
    stdin: Buffer.from(JSON.stringify(full)),
    config: full,
    cniVersion,
    name: 'net1',
    ...(o.prevResult && { prevResult: o.prevResult }),
  };
}
