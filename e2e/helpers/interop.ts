// The harness of the interop tests against Debian's Go plugins (e2e/<plugin>/interop.test.ts):
// one implementation's ADD, the other's DEL (GO_BIN or DIST_BIN each), our CHECK of the Go ADD,
// and each implementation's result for the same config with what differs per run set aside. The
// assertions stay in each test file; this holds the steps and the three hand-over tests' names.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { attachment } from './conflist.ts';
import { lanAttachment, type LanWorld } from './lan.ts';
import type { TestNetns } from './netns.ts';
import { DIST_BIN, execPlugin, GO_BIN, type PluginRun } from './plugins.ts';
import { withCachedResult } from './ptp.ts';
import { makePod } from './topology.ts';

/** 'go' or 'ours', for an assertion's message. */
export const implLabel = (dir: string): string => (dir === GO_BIN ? 'go' : 'ours');

/** The skip reason when the Go reference `plugin` is not installed, else false. */
export function goReferenceMissing(plugin: string): string | false {
  return existsSync(join(GO_BIN, plugin)) ? false : `the Go reference ${plugin} is not installed at ${GO_BIN}`;
}

/** The three hand-overs: Go → Go (the positive control), Go ADD → our DEL, our ADD → Go DEL. */
export function handOverTests(skip: string | false, handOver: (t: Test, adder: string, deleter: string) => Promise<unknown>): void {
  t.test('control: Go ADD → Go DEL', { skip }, (t) => handOver(t, GO_BIN, GO_BIN));
  t.test('Go ADD → our DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
  t.test('our ADD → Go DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));
}

/** The hand-over's steps: `adder`'s ADD, our CHECK of what it made, `deleter`'s DEL. */
export interface HandOver<C> {
  add(): Promise<any>;
  ourCheck(): Promise<C>;
  del(): Promise<void>;
}

/**
 * The hand-over of a conflist: each step through libcni, CHECK and DEL given ADD's result
 * as a runtime's cache would.
 */
export function conflistHandOver(list: object, o: { node: TestNetns; pod: TestNetns; id: string; adder: string; deleter: string }): HandOver<void> {
  const where = { node: o.node, pod: o.pod, id: o.id };
  let added: unknown;
  return {
    async add() {
      added = await attachment(list, { containerId: o.id, netns: o.pod.path, ifname: 'eth0' }, { nodeNetns: o.node.name, cniPath: [o.adder] }).add();
      return added;
    },
    ourCheck: () => withCachedResult(list, { ...where, cniPath: [DIST_BIN] }, added).check(),
    del: () => withCachedResult(list, { ...where, cniPath: [o.deleter] }, added).del(),
  };
}

/**
 * The hand-over of a plugin on the lan world (ipvlan, macvlan): ADD through libcni, our CHECK
 * run directly with ADD's result as prevResult (its exit code and output returned), DEL through
 * libcni without a cached result (neither implementation's DEL reads one).
 */
export function lanHandOver(
  network: string,
  plugin: Record<string, unknown> & { type: string },
  o: { world: LanWorld; pod: TestNetns; id: string; adder: string; deleter: string },
): HandOver<PluginRun> {
  const where = { node: o.world.node, pod: o.pod, id: o.id };
  let added: unknown;
  return {
    async add() {
      added = await lanAttachment(network, plugin, { ...where, cniPath: [o.adder] }).add();
      return added;
    },
    ourCheck: () =>
      execPlugin(
        plugin.type,
        { command: 'CHECK', containerId: o.id, netns: o.pod.path, ifname: 'eth0', nodeNetns: o.world.node.name },
        { cniVersion: '1.0.0', name: network, ...plugin, prevResult: added },
      ),
    del: () => lanAttachment(network, plugin, { ...where, cniPath: [o.deleter] }).del(),
  };
}

/** Both ADDs' results, each after its own hand-over (Go → Go, ours → ours). */
export async function bothResults<R>(t: Test, handOver: (t: Test, adder: string, deleter: string) => Promise<R>): Promise<{ go: R; ours: R }> {
  const go = await handOver(t, GO_BIN, GO_BIN);
  const ours = await handOver(t, DIST_BIN, DIST_BIN);
  return { go, ours };
}

/**
 * `conf` ADDed by each implementation (ours first) in a pod of its own on the lan world, then
 * DELeted; `inspect` sees each ADD's output and pod before the DEL. Returns the outputs,
 * normalised (normalisedLanResult).
 */
export async function addByEach(
  t: Test,
  { world, conf, id }: { world: LanWorld; conf: Record<string, unknown> & { type: string }; id: string },
  inspect: (dir: string, r: PluginRun, pod: TestNetns) => Promise<void> | void,
): Promise<unknown[]> {
  const outs: unknown[] = [];
  for (const dir of [DIST_BIN, GO_BIN]) {
    const pod = await makePod(t);
    const a = { containerId: id, netns: pod.path, ifname: 'eth0', nodeNetns: world.node.name, cniPath: [dir] };
    const r = await execPlugin(conf.type, { command: 'ADD', ...a }, conf, dir);
    await inspect(dir, r, pod);
    outs.push(normalisedLanResult(r.json ?? {}, pod.path));
    await execPlugin(conf.type, { command: 'DEL', ...a }, conf, dir);
  }
  return outs;
}

// Debian's libcni (1.0.x) prints an empty `"dns": {}` in 1.x results; the reference since v1.2
// drops it, as we do. MACs are random per ADD, and each implementation gets a pod of its own.
function normalisedLanResult(r: Record<string, any>, podPath: string): unknown {
  const { dns, ...rest } = r;
  const out: Record<string, any> = dns !== undefined && Object.keys(dns).length > 0 ? { ...r } : rest;
  if (Array.isArray(out['interfaces'])) {
    out['interfaces'] = out['interfaces'].map((i: Record<string, unknown>) => ({ ...i, mac: 'MAC', sandbox: i['sandbox'] === podPath ? 'POD' : i['sandbox'] }));
  }
  return out;
}

/** A result with its MACs and netns paths replaced and an empty dns dropped (libcni 1.1.1 prints "dns": {}; v1.9.1 does not). */
export function normalisedResult(r: Record<string, unknown>): Record<string, unknown> {
  const { dns, ...rest } = r;
  const out: Record<string, unknown> = JSON.parse(
    JSON.stringify(rest)
      .replace(/"mac":"[0-9a-f:]{17}"/g, '"mac":"MAC"')
      .replace(/"sandbox":"[^"]*"/g, '"sandbox":"POD"'),
  );
  if (dns && Object.keys(dns).length > 0) out['dns'] = dns;
  return out;
}
