// Every conflist in conf-examples/ is loaded and run through the built executables, the way
// a runtime on a node would: in a throwaway netns that plays the node, for a fresh pod.
// The one change made to the files: host-local's dataDir points into a temp dir, so the test
// never writes the real host's /var/lib/cni.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compareVersions } from '../lib/cni-spec/versions.ts';
import { attachment } from './helpers/conflist.ts';
import { makeNetns } from './helpers/netns.ts';
import { impl } from './helpers/impl.ts';
import { tempDir } from './helpers/plugins.ts';
import { ipJson, needsRoot, run } from './helpers/sh.ts';
import { portmapRulesOf, startNamedServer, tcpAnswer } from './helpers/portmap.ts';

// What a runtime passes for the capabilities a list declares (libcni turns them into runtimeConfig).
const HOST_PORT = 18080;
function capabilityArgs(list: { plugins: Record<string, unknown>[] }): Record<string, unknown> | undefined {
  const wants = (cap: string) => list.plugins.some((p) => (p['capabilities'] as Record<string, unknown> | undefined)?.[cap] === true);
  return wants('portMappings') ? { portMappings: [{ hostPort: HOST_PORT, containerPort: 80, protocol: 'tcp' }] } : undefined;
}

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

interface IpAddr { ifname: string; addr_info: { local: string; prefixlen: number }[] }

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
    const caps = capabilityArgs(original);
    const containerId = `ex-${process.pid}`;
    const a = attachment(withDataDir(original, dataDir), { containerId, netns: pod.path, ifname: 'eth0', ...(caps && { capabilityArgs: caps }) }, { nodeNetns: node.name });

    const result = await a.add();
    t.equal(result.cniVersion, a.list.cniVersion, 'ADD result is in the list version');
    const podAddrs = (await ipJson<IpAddr[]>(pod.name, ['addr', 'show'])).flatMap((l) => l.addr_info.map((i) => `${i.local}/${i.prefixlen}`));
    for (const ip of result.ips ?? []) t.ok(podAddrs.includes(ip.address), `pod has ${ip.address}`);

    if (caps) {
      // The node reaches the pod through the hostPort on its own gateway address.
      const gateway = (result.ips ?? [])[0]?.gateway as string;
      await startNamedServer(t, pod.name, 'pod', 80, 81);
      t.equal(await tcpAnswer(node.name, gateway, HOST_PORT), 'pod', `hostPort ${HOST_PORT} on ${gateway} reaches the pod`);
    }
    if (compareVersions(a.list.cniVersion, '0.4.0') >= 0) await t.resolves(a.check(), 'CHECK passes');
    await t.resolves(a.del(), 'DEL succeeds');
    if (caps) t.same(await portmapRulesOf(node.name, a.list.name, containerId), [], 'after DEL no port mapping rule is left');
    const links = (await ipJson<{ ifname: string }[]>(pod.name, ['link', 'show'])).map((l) => l.ifname);
    t.same(links, ['lo'], 'after DEL the pod has only lo');
    const leftovers = readdirSync(dataDir, { recursive: true }).map(String).filter((f) => /\d+\.\d+\.\d+\.\d+$|:/.test(f));
    t.same(leftovers, [], 'after DEL no address is allocated');
    await t.resolves(a.del(), 'DEL again succeeds');
  });
}
