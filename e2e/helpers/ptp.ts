// A ptp network for e2e tests: host-local dual stack in a temp dataDir, run in a node netns.
import { checkNetworkList, delNetworkList } from '../../tools/libcni/api.ts';
import { parseConflist } from '../../tools/libcni/conflist.ts';
import { attachment, type Attachment } from './conflist.ts';
import { BASE_ENV } from './plugins.ts';
import { inNetns } from '../../test-support/sh.ts';
import type { TestNetns } from './netns.ts';

export const PTP_NETWORK = 'ptpnet';
export const PTP_V4 = { subnet: '10.250.0.0/24', gateway: '10.250.0.1' } as const;
export const PTP_V6 = { subnet: 'fd00:250::/64', gateway: 'fd00:250::1' } as const;

export function ptpPlugin(dataDir: string, extra: object = {}, o: { v6?: boolean } = {}): Record<string, unknown> {
  const v6 = o.v6 !== false;
  return {
    type: 'ptp',
    ipMasq: true,
    mtu: 1400,
    ...extra,
    ipam: {
      type: 'host-local',
      dataDir,
      ranges: [[{ subnet: PTP_V4.subnet }], ...(v6 ? [[{ subnet: PTP_V6.subnet }]] : [])],
      routes: [{ dst: '0.0.0.0/0' }, ...(v6 ? [{ dst: '::/0' }] : [])],
    },
  };
}

export function ptpConflist(cniVersion: string, plugin: Record<string, unknown>): object {
  return { cniVersion, name: PTP_NETWORK, plugins: [plugin] };
}

/** Where an attachment runs: the node, the pod, the container id, the plugin directories (default DIST_BIN, the form under test). */
export interface PtpWhere {
  readonly node: TestNetns;
  readonly pod: TestNetns;
  readonly id: string;
  readonly cniPath?: readonly string[];
}

export function ptpAttachment(list: object, { node, pod, id, cniPath }: PtpWhere): Attachment {
  return attachment(list, { containerId: id, netns: pod.path, ifname: 'eth0' }, { nodeNetns: node.name, ...(cniPath && { cniPath }) });
}

/** CHECK and DEL with a result another implementation's ADD returned, as a runtime's cache would hand it over. */
export function withCachedResult(list: object, { node, pod, id, cniPath }: PtpWhere & { cniPath: readonly string[] }, cached: unknown) {
  const rt = { cniPath, baseEnv: BASE_ENV, wrap: inNetns(node.name) };
  const parsed = parseConflist(JSON.stringify(list));
  const conf = { containerId: id, netns: pod.path, ifname: 'eth0' };
  return { check: () => checkNetworkList(rt, parsed, conf, cached), del: () => delNetworkList(rt, parsed, conf, cached) };
}
