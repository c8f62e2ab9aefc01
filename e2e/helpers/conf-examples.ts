// The conf examples' own test, shared by the files that run it (e2e/runtimes/conf-examples*.test.ts):
// a conflist of conf-examples/ run the way an operator on a node would run it, `cni-run
// add/check/del` by network name from a conf dir, through the built cni-run and plugins, in a
// throwaway netns that plays the node, for a fresh pod. The one change made to the files:
// host-local's dataDir points into a temp dir, so the test never writes the real host's /var/lib/cni.
import type { Test } from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cniRun, confDirWith } from './cni-run.ts';
import { makeNetns } from './netns.ts';
import { DIST_BIN, tempDir } from './plugins.ts';
import { ipJson, run } from '../../test-support/sh.ts';
import { hasCheck } from './spec-versions.ts';
import { portmapRulesOf, startNamedServer, tcpAnswer } from './portmap.ts';

export const CONF_EXAMPLES = resolve(import.meta.dirname, '..', '..', 'conf-examples');

export type List = { name: string; cniVersion: string; plugins: Record<string, unknown>[] };

export const readExample = (file: string): List => JSON.parse(readFileSync(join(CONF_EXAMPLES, file), 'utf8')) as List;

/**
 * The example conflists, by file name; `vlan`: those that put pods on a VLAN (they need bridge
 * VLAN filtering), or the others. A list with ipvlan is in neither: it needs a kernel with ipvlan,
 * and e2e/ipvlan/conf-example.test.ts runs it (in the kernel lab). Nor is a list with the dhcp
 * IPAM: it needs a DHCP server and the daemon, and e2e/dhcp/conf-example.test.ts runs it.
 */
export function exampleFiles(vlan: boolean): string[] {
  return readdirSync(CONF_EXAMPLES)
    .filter((f) => f.endsWith('.conflist'))
    .filter((f) => !usesIpvlan(readExample(f)))
    .filter((f) => !usesDhcp(readExample(f)))
    .filter((f) => usesVlan(readExample(f)) === vlan);
}

const usesIpvlan = (list: List) => list.plugins.some((p) => p['type'] === 'ipvlan');
const usesDhcp = (list: List) => list.plugins.some((p) => (p['ipam'] as Record<string, unknown> | undefined)?.['type'] === 'dhcp');

// The masters macvlan and ipvlan entries name: a node interface on a real node (Multus' secondary
// networks use eth1), one end of a veth pair in the throwaway node here.
async function makeMasters(list: List, node: string): Promise<void> {
  const masters = new Set(list.plugins.map((p) => p['master']).filter((m): m is string => typeof m === 'string'));
  for (const [i, m] of [...masters].entries()) {
    await run('ip', ['-n', node, 'link', 'add', m, 'type', 'veth', 'peer', 'name', `exlan${i}`]);
    for (const dev of [m, `exlan${i}`]) await run('ip', ['-n', node, 'link', 'set', dev, 'up']);
  }
}

export function usesVlan(list: List): boolean {
  return list.plugins.some((p) => p['vlan'] !== undefined || p['vlanTrunk'] !== undefined);
}

export function withDataDir(list: List, dataDir: string): List {
  const plugins = list.plugins.map((p) => {
    const ipam = p['ipam'] as Record<string, unknown> | undefined;
    return ipam?.['type'] === 'host-local' ? { ...p, ipam: { ...ipam, dataDir } } : p;
  });
  return { ...list, plugins };
}

interface IpAddr {
  ifname: string;
  addr_info: { local: string; prefixlen: number }[];
}

const declares = (list: List, type: string, cap: string) =>
  list.plugins.some((p) => p['type'] === type && (p['capabilities'] as Record<string, unknown> | undefined)?.[cap] === true);

// What a Kubernetes pod with one hostPort and the 10M bandwidth annotations gets from its
// runtime, as cni-run's flags say it; given only where the list declares the capability.
export const HOST_PORT = 18080;
function capabilityFlags(list: List): string[] {
  return [
    ...(declares(list, 'portmap', 'portMappings') ? ['--port', `${HOST_PORT}:80/tcp`] : []),
    ...(declares(list, 'bandwidth', 'bandwidth') ? ['--bandwidth', 'in=10M,out=10M'] : []),
  ];
}

/** The body of "FILE: cni-run add, check, del". */
export async function addCheckDel(t: Test, file: string): Promise<void> {
  const original = readExample(file);
  const dataDir = tempDir(t, 'cnits-ipam-');
  const { confDir, cacheDir } = confDirWith(t, { [`10-${file}`]: withDataDir(original, dataDir) });
  const node = await makeNetns(t, 'exnode');
  await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
  await makeMasters(original, node.name);
  const pod = await makeNetns(t, 'expod');
  const containerId = `ex-${process.pid}`;
  const common = ['--conf-dir', confDir, '--plugin-dir', DIST_BIN, '--cache-dir', cacheDir, '--container-id', containerId];
  const cni = (verb: string, ...extra: string[]) => cniRun([verb, original.name, pod.path, ...common, ...extra], { nodeNetns: node.name });

  const add = await cni('add', ...capabilityFlags(original));
  t.equal(add.code, 0, `add: ${add.stderr}`);
  t.equal(add.stderr, '', 'add warns about nothing (every flag reaches a plugin)');
  const result = JSON.parse(add.stdout);
  t.equal(result.cniVersion, original.cniVersion, 'ADD result is in the list version');
  const cached = join(cacheDir, 'results', `${original.name}-${containerId}-eth0`);
  t.ok(existsSync(cached), "the result is cached under libcni's file name");
  const podAddrs = (await ipJson<IpAddr[]>(pod.name, ['addr', 'show'])).flatMap((l) => l.addr_info.map((i) => `${i.local}/${i.prefixlen}`));
  for (const ip of result.ips ?? []) t.ok(podAddrs.includes(ip.address), `pod has ${ip.address}`);

  const shaped = declares(original, 'bandwidth', 'bandwidth');
  if (shaped) {
    const ifb = (result.interfaces as { name: string }[]).at(-1)?.name ?? '';
    t.match(ifb, /^bwp[0-9a-f]{12}$/, '--bandwidth reached the plugin: an ifb ends the result');
    const tbf = JSON.parse(await run('tc', ['-n', node.name, '-j', 'qdisc', 'show', 'dev', ifb])) as { kind: string; options: { rate: number } }[];
    t.match(tbf, [{ kind: 'tbf', options: { rate: 1_250_000 } }], 'egress tbf at 10 Mbit/s');
  }
  const mapped = declares(original, 'portmap', 'portMappings');
  if (mapped) {
    // The node reaches the pod through the hostPort on its own gateway address.
    const gateway = (result.ips ?? [])[0]?.gateway as string;
    await startNamedServer(t, pod.name, 'pod', { tcp: 80, udp: 81 });
    t.equal(await tcpAnswer(node.name, gateway, HOST_PORT), 'pod', `--port: hostPort ${HOST_PORT} on ${gateway} reaches the pod`);
  }
  if (hasCheck(original.cniVersion)) {
    const check = await cni('check');
    t.equal(check.code, 0, `check: ${check.stderr}`);
  }
  // DEL without the flags: cni-run takes the capability args the ADD was given from the cache.
  const del = await cni('del');
  t.equal(del.code, 0, `del: ${del.stderr}`);
  t.notOk(existsSync(cached), 'DEL removed the cached result');
  if (shaped) t.same(JSON.parse(await run('ip', ['-n', node.name, '-j', 'link', 'show', 'type', 'ifb'])), [], 'after DEL no ifb is left');
  if (mapped) t.same(await portmapRulesOf(node.name, original.name, containerId), [], 'after DEL no port mapping rule is left');
  const links = (await ipJson<{ ifname: string }[]>(pod.name, ['link', 'show'])).map((l) => l.ifname);
  t.same(links, ['lo'], 'after DEL the pod has only lo');
  const leftovers = readdirSync(dataDir, { recursive: true })
    .map(String)
    .filter((f) => /\d+\.\d+\.\d+\.\d+$|:/.test(f));
  t.same(leftovers, [], 'after DEL no address is allocated');
  const again = await cni('del');
  t.equal(again.code, 0, `DEL again succeeds: ${again.stderr}`);
}
