// Every conflist in conf-examples/ is validated and run the way an operator on a node would
// run it: `cni-run validate` on the file, then `cni-run add/check/del` by network name from a
// conf dir, through the built dist/bin/cni-run and plugins, in a throwaway netns that plays the
// node, for a fresh pod. The one change made to the files: host-local's dataDir points into a
// temp dir, so the test never writes the real host's /var/lib/cni.
import t from 'tap';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cniRun, confDirWith } from './helpers/cni-run.ts';
import { makeNetns } from './helpers/netns.ts';
import { impl } from './helpers/impl.ts';
import { DIST_BIN, tempDir } from './helpers/plugins.ts';
import { ipJson, needsRoot, run } from './helpers/sh.ts';
import { hasCheck } from './helpers/spec-versions.ts';
import { portmapRulesOf, startNamedServer, tcpAnswer } from './helpers/portmap.ts';
import { makeTopology, pings, UPLINK } from './helpers/topology.ts';

const dir = resolve(import.meta.dirname, '..', 'conf-examples');
const files = readdirSync(dir).filter((f) => f.endsWith('.conflist'));
t.ok(files.length > 0, 'there are example conflists');

type List = { name: string; cniVersion: string; plugins: Record<string, unknown>[] };

function withDataDir(list: List, dataDir: string): List {
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
const HOST_PORT = 18080;
function capabilityFlags(list: List): string[] {
  return [
    ...(declares(list, 'portmap', 'portMappings') ? ['--port', `${HOST_PORT}:80/tcp`] : []),
    ...(declares(list, 'bandwidth', 'bandwidth') ? ['--bandwidth', 'in=10M,out=10M'] : []),
  ];
}

// A list that puts pods on a VLAN needs a kernel with bridge VLAN filtering.
function skipReason(list: List): string | false {
  if (needsRoot) return needsRoot;
  const usesVlan = list.plugins.some((p) => p['vlan'] !== undefined || p['vlanTrunk'] !== undefined);
  return usesVlan ? impl.lacks('kernel-vlan-filtering') : false;
}

for (const file of files) {
  t.test(`${file}: cni-run validate`, async (t) => {
    const r = await cniRun(['validate', join(dir, file)]);
    t.equal(r.code, 0, `exit 0: ${r.stdout}${r.stderr}`);
    t.match(r.stdout, /^valid: 1 file\(s\), 0 error\(s\)/m);
  });
}

for (const file of files) {
  const original = JSON.parse(readFileSync(join(dir, file), 'utf8')) as List;
  t.test(`${file}: cni-run add, check, del`, { skip: skipReason(original) }, async (t) => {
    const dataDir = tempDir(t, 'cnits-ipam-');
    const { confDir, cacheDir } = confDirWith(t, { [`10-${file}`]: withDataDir(original, dataDir) });
    const node = await makeNetns(t, 'exnode');
    await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
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
  });
}

t.test('cni-run validate on a broken example names the file, the plugin and the field, and exits 1', { skip: needsRoot }, async (t) => {
  const broken = JSON.parse(readFileSync(join(dir, 'k8s-node.conflist'), 'utf8')) as List;
  (broken.plugins[0] as { ipam: { ranges: { subnet: string }[][] } }).ipam.ranges[0]![0]!.subnet = '10.244.1.0/33';
  (broken.plugins[1] as Record<string, unknown>)['markMasqBit'] = 99;
  const file = join(tempDir(t, 'cnits-broken-'), 'broken.conflist');
  writeFileSync(file, JSON.stringify(broken));
  const r = await cniRun(['validate', file]);
  t.equal(r.code, 1, 'exit 1');
  t.match(r.stdout, `${file}: plugins[0] (bridge): ipam.ranges[0][0].subnet: error: `);
  t.match(r.stdout, `${file}: plugins[1] (portmap): markMasqBit: error: `);
  t.match(r.stdout, /^invalid: 1 file\(s\), 2 error\(s\)/m);
  const json = await cniRun(['validate', '--json', file]);
  t.equal(json.code, 1);
  t.match(JSON.parse(json.stdout), {
    valid: false,
    errors: 2,
    files: [
      {
        file,
        findings: [
          { severity: 'error', plugin: 0, type: 'bridge', field: 'ipam.ranges[0][0].subnet' },
          { severity: 'error', plugin: 1, type: 'portmap', field: 'markMasqBit' },
        ],
      },
    ],
  });
});

// The default networks of kind and Podman run on our executables alone: kind's nodes (kindnetd)
// write kind.conflist (ptp with no masquerade, then portmap); Podman's CNI backend writes
// podman-default.conflist for its default network (bridge, portmap, firewall, tuning). Two pods
// on one node reach each other and the node, and a hostPort answers a client in another netns.
for (const [file, families] of [
  ['kind.conflist', 2],
  ['podman-default.conflist', 1],
] as const) {
  t.test(`${file}: pod ↔ node, pod → pod, hostPort from beyond the node`, { skip: needsRoot }, async (t) => {
    const original = JSON.parse(readFileSync(join(dir, file), 'utf8')) as List;
    const { node, remote, dataDir } = await makeTopology(t, { remote: true });
    const { confDir, cacheDir } = confDirWith(t, { [`10-${file}`]: withDataDir(original, dataDir) });
    const pods = [await makeNetns(t, 'expod'), await makeNetns(t, 'expod')];
    const ips: string[][] = [];
    for (const [i, pod] of pods.entries()) {
      const common = ['--conf-dir', confDir, '--plugin-dir', DIST_BIN, '--cache-dir', cacheDir, '--container-id', `ex-${i}-${process.pid}`];
      const cni = (verb: string, ...extra: string[]) => cniRun([verb, original.name, pod.path, ...common, ...extra], { nodeNetns: node.name });
      const add = await cni('add', ...(i === 0 ? ['--port', `${HOST_PORT}:80/tcp`] : []));
      t.equal(add.code, 0, `add pod ${i}: ${add.stderr}`);
      t.teardown(async () => void (await cni('del')));
      ips.push((JSON.parse(add.stdout).ips as { address: string }[]).map((ip) => ip.address.split('/')[0] as string));
    }
    const [a, b] = [ips[0] ?? [], ips[1] ?? []];
    t.equal(a.length, families, `an address of each of the list's ${families} families`);
    for (const ip of a) t.ok(await pings(node.name, ip), `node → pod ${ip}`);
    t.ok(await pings(pods[0]?.name ?? '', UPLINK.nodeV4), 'pod → node');
    for (const ip of b) t.ok(await pings(pods[0]?.name ?? '', ip), `pod → pod ${ip}`);
    await startNamedServer(t, pods[0]?.name ?? '', 'pod', { tcp: 80, udp: 81 });
    t.equal(await tcpAnswer(remote?.name ?? '', UPLINK.nodeV4, HOST_PORT), 'pod', `hostPort ${HOST_PORT} on the node answers a client beyond it`);
  });
}
