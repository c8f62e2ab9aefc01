// Every conflist in conf-examples/ is loaded and run through the built executables, the way
// a runtime on a node would: in a throwaway netns that plays the node, for a fresh pod.
// The one change made to the files: host-local's dataDir points into a temp dir, so the test
// never writes the real host's /var/lib/cni.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { attachment } from './helpers/conflist.ts';
import { makeNetns } from './helpers/netns.ts';
import { impl } from './helpers/impl.ts';
import { tempDir } from './helpers/plugins.ts';
import { ipJson, needsRoot, run } from './helpers/sh.ts';
import { hasCheck } from './helpers/spec-versions.ts';
import { portmapRulesOf, startNamedServer, tcpAnswer } from './helpers/portmap.ts';

const dir = resolve(import.meta.dirname, '..', 'conf-examples');
const files = readdirSync(dir).filter((f) => f.endsWith('.conflist'));
t.ok(files.length > 0, 'there are example conflists');

function withDataDir(list: { plugins: Record<string, unknown>[] }, dataDir: string): object {
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

// What a runtime passes for the capabilities a list declares (libcni turns them into each
// plugin's runtimeConfig): a Kubernetes pod with the 10M bandwidth annotations and one
// hostPort, as containerd sends them.
const HOST_PORT = 18080;
const CAPABILITY_ARGS = {
  bandwidth: { ingressRate: 10_000_000, ingressBurst: 4_294_967_295, egressRate: 10_000_000, egressBurst: 4_294_967_295 },
  portMappings: [{ hostPort: HOST_PORT, containerPort: 80, protocol: 'tcp' }],
};

// A list that puts pods on a VLAN needs a kernel with bridge VLAN filtering.
function skipReason(list: { plugins: Record<string, unknown>[] }): string | false {
  if (needsRoot) return needsRoot;
  const usesVlan = list.plugins.some((p) => p['vlan'] !== undefined || p['vlanTrunk'] !== undefined);
  return usesVlan ? impl.lacks('kernel-vlan-filtering') : false;
}

for (const file of files) {
  const original = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  t.test(file, { skip: skipReason(original) }, async (t) => {
    const dataDir = tempDir(t, 'cnits-ipam-');
    const node = await makeNetns(t, 'exnode');
    await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
    const pod = await makeNetns(t, 'expod');
    const containerId = `ex-${process.pid}`;
    const a = attachment(
      withDataDir(original, dataDir),
      { containerId, netns: pod.path, ifname: 'eth0', capabilityArgs: CAPABILITY_ARGS },
      { nodeNetns: node.name },
    );

    const result = await a.add();
    t.equal(result.cniVersion, a.list.cniVersion, 'ADD result is in the list version');
    const podAddrs = (await ipJson<IpAddr[]>(pod.name, ['addr', 'show'])).flatMap((l) => l.addr_info.map((i) => `${i.local}/${i.prefixlen}`));
    for (const ip of result.ips ?? []) t.ok(podAddrs.includes(ip.address), `pod has ${ip.address}`);

    const shaped = original.plugins.some(
      (p: Record<string, unknown>) => p['type'] === 'bandwidth' && (p['capabilities'] as Record<string, unknown> | undefined)?.['bandwidth'] === true,
    );
    if (shaped) {
      const ifb = (result.interfaces as { name: string }[]).at(-1)?.name ?? '';
      t.match(ifb, /^bwp[0-9a-f]{12}$/, 'the bandwidth capability reached the plugin: an ifb ends the result');
      const tbf = JSON.parse(await run('tc', ['-n', node.name, '-j', 'qdisc', 'show', 'dev', ifb])) as { kind: string; options: { rate: number } }[];
      t.match(tbf, [{ kind: 'tbf', options: { rate: 1_250_000 } }], 'egress tbf at 10 Mbit/s');
    }
    const mapped = original.plugins.some(
      (p: Record<string, unknown>) => p['type'] === 'portmap' && (p['capabilities'] as Record<string, unknown> | undefined)?.['portMappings'] === true,
    );
    if (mapped) {
      // The node reaches the pod through the hostPort on its own gateway address.
      const gateway = (result.ips ?? [])[0]?.gateway as string;
      await startNamedServer(t, pod.name, 'pod', { tcp: 80, udp: 81 });
      t.equal(await tcpAnswer(node.name, gateway, HOST_PORT), 'pod', `hostPort ${HOST_PORT} on ${gateway} reaches the pod`);
    }
    if (hasCheck(a.list.cniVersion)) await t.resolves(a.check(), 'CHECK passes');
    await t.resolves(a.del(), 'DEL succeeds');
    if (shaped) t.same(JSON.parse(await run('ip', ['-n', node.name, '-j', 'link', 'show', 'type', 'ifb'])), [], 'after DEL no ifb is left');
    if (mapped) t.same(await portmapRulesOf(node.name, a.list.name, containerId), [], 'after DEL no port mapping rule is left');
    const links = (await ipJson<{ ifname: string }[]>(pod.name, ['link', 'show'])).map((l) => l.ifname);
    t.same(links, ['lo'], 'after DEL the pod has only lo');
    const leftovers = readdirSync(dataDir, { recursive: true })
      .map(String)
      .filter((f) => /\d+\.\d+\.\d+\.\d+$|:/.test(f));
    t.same(leftovers, [], 'after DEL no address is allocated');
    await t.resolves(a.del(), 'DEL again succeeds');
  });
}
