// Bridge networks for e2e tests: configs (bridge + host-local) and the verbs run against a
// plugin directory inside a node netns, the way a runtime on that node would run them.
import type { TestNetns } from './netns.ts';
import { execPlugin, type PluginRun } from './plugins.ts';

export const POD_V4 = { subnet: '10.244.0.0/24', gateway: '10.244.0.1' } as const;
export const POD_V6 = { subnet: 'fd00:10:244::/64', gateway: 'fd00:10:244::1' } as const;

export interface NetOptions {
  readonly dataDir: string;
  readonly name?: string;
  readonly cniVersion?: string;
  readonly bridge?: string;
  /** IPv4 range (default POD_V4); false for none */
  readonly v4?: { subnet: string; rangeStart?: string; rangeEnd?: string } | false;
  /** IPv6 range (default none) */
  readonly v6?: { subnet: string } | false;
  /** more bridge fields: isGateway, ipMasq, hairpinMode, vlan, … */
  readonly bridgeFields?: Readonly<Record<string, unknown>>;
  /** more ipam fields */
  readonly ipamFields?: Readonly<Record<string, unknown>>;
}

/** One plugin's network configuration, as a runtime hands it over (name and cniVersion in). */
export function bridgeConf(o: NetOptions): Record<string, unknown> {
  const v4 = o.v4 === undefined ? { subnet: POD_V4.subnet } : o.v4;
  const ranges = [v4, o.v6 ?? false].filter((r) => r !== false).map((r) => [r]);
  return {
    cniVersion: o.cniVersion ?? '1.0.0',
    name: o.name ?? 'podnet',
    type: 'bridge',
    bridge: o.bridge ?? 'cni0',
    ...o.bridgeFields,
    ipam: { type: 'host-local', dataDir: o.dataDir, ranges, ...o.ipamFields },
  };
}

export interface PodRef {
  readonly ns: TestNetns;
  readonly id: string;
  readonly ifname?: string;
}

export type Verb = 'ADD' | 'DEL' | 'CHECK' | 'GC' | 'STATUS';

/** Runs one verb of `dir`/bridge in the node, with CNI_PATH = [dir] (its own IPAM). */
// eslint-disable-next-line @typescript-eslint/max-params -- e2e/helpers is being rewritten for the fail-closed harness (issue #9 item 1); its signatures change there, not in parallel
export function runBridge(dir: string, node: string, command: Verb, conf: object, pod?: PodRef, cniArgs?: string): Promise<PluginRun> {
  const env = pod === undefined ? {} : { containerId: pod.id, netns: pod.ns.path, ifname: pod.ifname ?? 'eth0' };
  return execPlugin('bridge', { command, ...env, ...(cniArgs !== undefined && { args: cniArgs }), cniPath: [dir], nodeNetns: node }, conf, dir);
}

/** A failed plugin run as an Error that shows everything the plugin said. */
export function runError(what: string, r: PluginRun): Error {
  return new Error(`${what} failed (exit ${r.code}${r.signal ? `, ${r.signal}` : ''}): stdout=${r.stdout.trim()} stderr=${r.stderr.trim().slice(0, 2000)}`);
}

/** ADD that must succeed: resolves to the parsed result. */
export async function addPod(dir: string, node: string, conf: object, pod: PodRef): Promise<BridgeResult> {
  const r = await runBridge(dir, node, 'ADD', conf, pod);
  if (r.code !== 0 || r.json === undefined) throw runError(`ADD ${pod.id} with ${dir}/bridge`, r);
  return r.json as BridgeResult;
}

/** DEL that must succeed; no prevResult unless given (a runtime that lost its cache). */
// eslint-disable-next-line @typescript-eslint/max-params -- e2e/helpers is being rewritten for the fail-closed harness (issue #9 item 1); its signatures change there, not in parallel
export async function delPod(dir: string, node: string, conf: object, pod: PodRef, prevResult?: unknown): Promise<void> {
  const r = await runBridge(dir, node, 'DEL', prevResult === undefined ? conf : { ...conf, prevResult }, pod);
  if (r.code !== 0) throw runError(`DEL ${pod.id} with ${dir}/bridge`, r);
}

export interface BridgeResult {
  cniVersion: string;
  interfaces: { name: string; mac?: string; sandbox?: string }[];
  ips: { address: string; gateway?: string; interface?: number }[];
  routes?: { dst: string; gw?: string }[];
}

/** The pod's addresses in a result, without prefix, IPv4 first. */
export function addrs(r: BridgeResult): { v4: string | undefined; v6: string | undefined; all: string[] } {
  const all = r.ips.map((ip) => ip.address.split('/')[0] as string);
  return { v4: all.find((a) => !a.includes(':')), v6: all.find((a) => a.includes(':')), all };
}

/** The host-side veth named in a result: the interface without a sandbox that is not the bridge. */
export function hostVeth(r: BridgeResult, bridge = 'cni0'): string | undefined {
  return r.interfaces.find((i) => i.sandbox === undefined && i.name !== bridge && !i.name.startsWith(`${bridge}.`))?.name;
}
