// Every conflist in conf-examples/ is validated and run the way an operator on a node would
// run it: `cni-run validate` on the file, then `cni-run add/check/del` by network name from a
// conf dir, through the built cni-run and plugins, in a throwaway netns that plays the
// node, for a fresh pod. The one change made to the files: host-local's dataDir points into a
// temp dir, so the test never writes the real host's /var/lib/cni.
import t from 'tap';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cniRun, confDirWith } from '../helpers/cni-run.ts';
import { cnitoolMissing } from '../helpers/cnitool.ts';
import { makeNetns } from '../helpers/netns.ts';
import { impl } from '../helpers/impl.ts';
import { attachmentTraces, nodeVeths, type AttachmentRef } from '../helpers/node-state.ts';
import { DIST_BIN, oursOnlyDir, tempDir } from '../helpers/plugins.ts';
import { podAttachment, RUNTIME_CLIS, type PodAttachment } from '../helpers/runtime-cli.ts';
import { ipJson, needsRoot, run } from '../../test-support/sh.ts';
import { hasCheck } from '../helpers/spec-versions.ts';
import { portmapRulesOf, startNamedServer, tcpAnswer } from '../helpers/portmap.ts';
import { inSubnet, makeTopology, pings, UPLINK } from '../helpers/topology.ts';

const dir = resolve(import.meta.dirname, '..', '..', 'conf-examples');
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

// The subnets host-local gives addresses from: the first range of each range set, in order.
const hostLocalSubnets = (list: List): string[] =>
  list.plugins.flatMap((p) => ((p['ipam'] as { ranges?: { subnet: string }[][] } | undefined)?.ranges ?? []).map((set) => set[0]?.subnet ?? ''));

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

// The masters macvlan and ipvlan entries name: a node interface on a real node (Multus' secondary
// networks use eth1), one end of a veth pair in the throwaway node here.
async function makeMasters(list: List, node: string): Promise<void> {
  const masters = new Set(list.plugins.map((p) => p['master']).filter((m): m is string => typeof m === 'string'));
  for (const [i, m] of [...masters].entries()) {
    await run('ip', ['-n', node, 'link', 'add', m, 'type', 'veth', 'peer', 'name', `exlan${i}`]);
    for (const dev of [m, `exlan${i}`]) await run('ip', ['-n', node, 'link', 'set', dev, 'up']);
  }
}

// A list with ipvlan needs a kernel with ipvlan: e2e/ipvlan/conf-example.test.ts runs it, in the kernel lab.
const usesIpvlan = (list: List) => list.plugins.some((p) => p['type'] === 'ipvlan');

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
  if (usesIpvlan(original)) continue;
  t.test(`${file}: cni-run add, check, del`, { skip: skipReason(original) }, async (t) => {
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

// The default networks of kind and Podman run on our executables alone, through our cni-run and
// through the reference cnitool, with a plugin dir holding nothing else: kind's nodes (kindnetd)
// write kind.conflist (ptp with no masquerade, then portmap); Podman's CNI backend writes
// podman-default.conflist for its default network (bridge, portmap, firewall, tuning). Two pods
// on one node get addresses from the list's subnets, reach each other and the node, and a
// hostPort answers a client in another netns; CHECK passes; GC (cni-run's: cnitool 1.1 has no
// gc verb) removes the pod not named valid and keeps the other; DEL leaves nothing.
for (const runtime of RUNTIME_CLIS) {
  for (const file of ['kind.conflist', 'podman-default.conflist']) {
    t.test(`${file} through ${runtime}: addresses, pod ↔ node, pod → pod, hostPort, CHECK, GC, DEL`, { skip: needsRoot }, async (t) => {
      if (runtime === 'cnitool' && cnitoolMissing !== undefined) return void t.fail(cnitoolMissing);
      const original = JSON.parse(readFileSync(join(dir, file), 'utf8')) as List;
      const { node, remote, dataDir } = await makeTopology(t, { remote: true });
      const { confDir, cacheDir } = confDirWith(t, { [`10-${file}`]: withDataDir(original, dataDir) });
      const net = { runtime, network: original.name, confDir, cacheDir, pluginDir: oursOnlyDir(t), nodeNetns: node.name };
      const pods = [await makeNetns(t, 'expod'), await makeNetns(t, 'expod')] as const;
      const [a, b] = pods.map((p) => podAttachment(net, p.path)) as [PodAttachment, PodAttachment];
      const results: AttachmentRef['result'][] = [];
      for (const [i, att] of [a, b].entries()) {
        const add = await att.add(i === 0 ? [{ hostPort: HOST_PORT, containerPort: 80 }] : []);
        t.equal(add.code, 0, `add pod ${i}: ${add.stdout}${add.stderr}`);
        t.teardown(async () => void (await att.del()));
        results.push(JSON.parse(add.stdout));
      }
      const ref = (i: 0 | 1): AttachmentRef => {
        const att = i === 0 ? a : b;
        return {
          node: node.name,
          network: original.name,
          containerId: att.containerId,
          pod: pods[i].name,
          dataDir,
          result: results[i] ?? {},
          cacheFile: att.cacheFile,
        };
      };
      const ips = results.map((r) => (r.ips ?? []).map((ip) => ip.address.split('/')[0] as string));
      const subnets = hostLocalSubnets(original);
      for (const [i, r] of results.entries()) {
        t.same(
          (r.ips ?? []).map((ip) => subnets.findIndex((s) => inSubnet(ip.address, s))),
          subnets.map((_, k) => k),
          `pod ${i} has an address from each subnet of the list, in order (${subnets.join(', ')}): ${(r.ips ?? []).map((ip) => ip.address).join(', ')}`,
        );
      }
      for (const ip of ips[0] ?? []) t.ok(await pings(node.name, ip), `node → pod ${ip}`);
      t.ok(await pings(pods[0].name, UPLINK.nodeV4), 'pod → node');
      for (const ip of ips[1] ?? []) t.ok(await pings(pods[0].name, ip), `pod → pod ${ip}`);
      await startNamedServer(t, pods[0].name, 'pod', { tcp: 80, udp: 81 });
      t.equal(await tcpAnswer(remote?.name ?? '', UPLINK.nodeV4, HOST_PORT), 'pod', `hostPort ${HOST_PORT} on the node answers a client beyond it`);

      for (const [i, att] of [a, b].entries()) {
        const check = await att.check();
        if (hasCheck(original.cniVersion)) t.equal(check.code, 0, `check pod ${i}: ${check.stdout}${check.stderr}`);
        else t.not(check.code, 0, `CHECK is refused: spec ${original.cniVersion} has no CHECK`);
      }

      // Pod 1's container is gone, and its interface with it (as its netns would take it; deleting
      // one end of the pair is synchronous, a netns is freed by the kernel later). GC with pod 0
      // the only valid attachment removes the rest of pod 1 (address, rules, cache entry: cnitool
      // 1.1's cache keeps no netns path, so only the runtime's own DEL could reach the pod), and
      // pod 0 stays and still answers.
      await run('ip', ['-n', pods[1].name, 'link', 'del', 'eth0']);
      const common = ['--conf-dir', confDir, '--plugin-dir', net.pluginDir, '--cache-dir', cacheDir];
      const gc = await cniRun(['gc', original.name, '--valid', `${a.containerId}:eth0`, ...common], { nodeNetns: node.name });
      t.equal(gc.code, 0, `cni-run gc: ${gc.stderr}`);
      t.same(await attachmentTraces(ref(1)), {}, 'GC left nothing of pod 1 (not valid)');
      t.ok(existsSync(a.cacheFile), 'GC kept the valid pod 0 in the cache');
      for (const ip of ips[0] ?? []) t.ok(await pings(node.name, ip), `after GC, node → pod 0 ${ip}`);

      const del = await a.del();
      t.equal(del.code, 0, `del pod 0: ${del.stderr}`);
      t.same(await attachmentTraces(ref(0)), {}, 'DEL left nothing of pod 0');
      t.same(await nodeVeths(node.name), [], 'no veth is left on the node');
      const again = await a.del();
      t.equal(again.code, 0, `DEL again succeeds: ${again.stderr}`);
    });
  }
}

// Podman's isolated networks (`podman network create --opt isolate=true`): its default list with
// firewall's ingressPolicy same-bridge, on two bridges. Pods of one bridge reach each other, the
// node reaches all of them, and traffic between the two bridges is dropped.
for (const runtime of RUNTIME_CLIS) {
  t.test(`podman-default.conflist through ${runtime}: two isolated networks (ingressPolicy same-bridge)`, { skip: needsRoot }, async (t) => {
    if (runtime === 'cnitool' && cnitoolMissing !== undefined) return void t.fail(cnitoolMissing);
    const original = JSON.parse(readFileSync(join(dir, 'podman-default.conflist'), 'utf8')) as List;
    const { node, dataDir } = await makeTopology(t);
    const isolated = (name: string, bridge: string, subnet: string, gateway: string): List => {
      const [first, ...rest] = withDataDir(original, dataDir).plugins.map((p) => (p['type'] === 'firewall' ? { ...p, ingressPolicy: 'same-bridge' } : p));
      const ipam = first?.['ipam'] as Record<string, unknown>;
      return { ...original, name, plugins: [{ ...first, bridge, ipam: { ...ipam, ranges: [[{ subnet, gateway }]] } }, ...rest] };
    };
    const lists = [isolated('podman', 'cni-podman0', '10.88.0.0/16', '10.88.0.1'), isolated('podman1', 'cni-podman1', '10.89.0.0/24', '10.89.0.1')];
    const { confDir, cacheDir } = confDirWith(t, { '10-podman.conflist': lists[0], '20-podman1.conflist': lists[1] });
    const pluginDir = oursOnlyDir(t);
    type Pod = { ns: string; ip: string };
    const pods: Pod[][] = [];
    for (const list of lists) {
      const net = { runtime, network: list.name, confDir, cacheDir, pluginDir, nodeNetns: node.name };
      const onBridge: Pod[] = [];
      for (let i = 0; i < 2; i++) {
        const pod = await makeNetns(t, 'expod');
        const att = podAttachment(net, pod.path);
        const add = await att.add();
        t.equal(add.code, 0, `add a pod to ${list.name}: ${add.stderr}`);
        t.teardown(async () => void (await att.del()));
        onBridge.push({ ns: pod.name, ip: (JSON.parse(add.stdout) as { ips: { address: string }[] }).ips[0]?.address.split('/')[0] ?? '' });
      }
      pods.push(onBridge);
    }
    const [[a0, a1], [b0, b1]] = pods as [[Pod, Pod], [Pod, Pod]];
    t.ok(await pings(a0.ns, a1.ip), `same bridge: a pod of podman reaches the other (${a1.ip})`);
    t.ok(await pings(b0.ns, b1.ip), `same bridge: a pod of podman1 reaches the other (${b1.ip})`);
    t.ok(await pings(node.name, b0.ip), 'the node reaches a pod of podman1');
    const across = await Promise.all([pings(a0.ns, b0.ip), pings(b0.ns, a0.ip)]);
    t.same(across, [false, false], 'across bridges: neither podman → podman1 nor podman1 → podman gets through');
  });
}
