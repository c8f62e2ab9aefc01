// The built cni-run as an operator meets it: what it says when something is wrong
// (and with which exit status, docs/cni-run.md#exit-status), a failed ADD undone, GC of the
// attachments not listed as valid, STATUS, and the version line.
import t, { type Test } from 'tap';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cniRun, confDirWith } from '../helpers/cni-run.ts';
import { makeNetns, type TestNetns } from '../helpers/netns.ts';
import { DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { ipJson, needsRoot, nsRun, run } from '../../test-support/sh.ts';

const bridgeList = (name: string, dataDir: string, extra: Record<string, unknown> = {}, more: object[] = []) => ({
  cniVersion: '1.1.0',
  name,
  plugins: [{ type: 'bridge', bridge: 'cnirun0', isGateway: true, ipam: { type: 'host-local', subnet: '10.77.0.0/24', dataDir }, ...extra }, ...more],
});

interface Node {
  readonly node: TestNetns;
  readonly confDir: string;
  readonly cacheDir: string;
  readonly dataDir: string;
  cni(args: readonly string[], env?: Readonly<Record<string, string>>): ReturnType<typeof cniRun>;
}

async function node(t: Test, lists: (dataDir: string) => Record<string, unknown>): Promise<Node> {
  const dataDir = tempDir(t, 'cnits-ipam-');
  const { confDir, cacheDir } = confDirWith(t, lists(dataDir));
  const n = await makeNetns(t, 'clinode');
  await run('ip', ['-n', n.name, 'link', 'set', 'lo', 'up']);
  const cni = (args: readonly string[], env?: Readonly<Record<string, string>>) =>
    cniRun([...args, '--conf-dir', confDir, '--plugin-dir', DIST_BIN, '--cache-dir', cacheDir], {
      nodeNetns: n.name,
      ...(env && { env }),
    });
  return { node: n, confDir, cacheDir, dataDir, cni };
}

const allocated = (dataDir: string) =>
  readdirSync(dataDir, { recursive: true })
    .map(String)
    .filter((f) => /\d+\.\d+\.\d+\.\d+$/.test(f));
const nodeVeths = async (n: TestNetns) => (await ipJson<{ ifname: string }[]>(n.name, ['link', 'show', 'type', 'veth'])).map((l) => l.ifname);

const cached = (n: Node) => (existsSync(join(n.cacheDir, 'results')) ? readdirSync(join(n.cacheDir, 'results')) : []);

t.test("a plugin's CNI error is shown with code, msg and details; exit 1; the failed ADD is undone", { skip: needsRoot }, async (t) => {
  // bandwidth refuses a rate without a burst; bridge ran before it and made a veth and an address.
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d, {}, [{ type: 'bandwidth', ingressRate: 1000000 }]) }));
  const pod = await makeNetns(t, 'clipod');
  const r = await n.cni(['add', 'net', pod.path]);
  t.equal(r.code, 1, 'exit 1: a plugin failed');
  t.equal(r.stdout, '', 'no result on stdout');
  t.match(r.stderr, 'cni-run: add failed:\n  plugin type="bandwidth" name="net" failed (add)\n    CNI error code 7 (invalid network config)\n');
  t.match(r.stderr, /msg: +if rate is set, burst must also be set\n +details: ingressBurst: if rate is set, burst must also be set/);
  // The undo is a DEL of the whole list, as a runtime does; bandwidth refuses its config on DEL
  // too, and says so, but the bridge still gets its DEL.
  t.match(r.stderr, /undoing the ADD \(DEL of every plugin\) failed too:\n +plugin type="bandwidth" name="net" failed \(delete\)/);
  t.same(await nodeVeths(n.node), [], "the bridge's veth was removed by the undo");
  t.same(allocated(n.dataDir), [], 'the address was released by the undo');
  t.same(cached(n), [], 'nothing cached');
});

t.test('an ADD that fails for want of addresses is undone: nothing of the second pod is left', { skip: needsRoot }, async (t) => {
  // A /30 has one address for pods besides the gateway.
  const n = await node(t, (d) => ({
    '10-net.conflist': {
      ...bridgeList('net', d),
      plugins: [{ type: 'bridge', bridge: 'cnirun0', isGateway: true, ipam: { type: 'host-local', subnet: '10.77.0.0/30', dataDir: d } }],
    },
  }));
  const first = await makeNetns(t, 'clipod');
  const second = await makeNetns(t, 'clipod');
  t.equal((await n.cni(['add', 'net', first.path])).code, 0, 'the first pod gets the address');
  const r = await n.cni(['add', 'net', second.path]);
  t.equal(r.code, 1);
  t.match(r.stderr, /plugin type="bridge" name="net" failed \(add\)\n[\s\S]*no IP addresses available in range set/);
  t.match(r.stderr, /the ADD was undone: every plugin of the list got DEL, as a runtime does after a failed ADD/);
  t.equal((await nodeVeths(n.node)).length, 1, "only the first pod's veth is on the node");
  t.same(
    (await ipJson<{ ifname: string }[]>(second.name, ['link', 'show'])).map((l) => l.ifname),
    ['lo'],
    'the second pod has only lo',
  );
  t.equal((await n.cni(['del', 'net', first.path])).code, 0);
  t.same(cached(n), []);
});

t.test('a missing plugin names every directory searched; exit 3; what ran before is undone', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d, {}, [{ type: 'no-such-plugin' }]) }));
  const pod = await makeNetns(t, 'clipod');
  const empty = tempDir(t, 'cnits-emptybin-');
  const r = await cniRun(
    ['add', 'net', pod.path, '--conf-dir', n.confDir, '--cache-dir', n.cacheDir, '--plugin-dir', `${DIST_BIN}:${empty}:/nonexistent-cni`],
    {
      nodeNetns: n.node.name,
    },
  );
  t.equal(r.code, 3, 'exit 3');
  t.match(
    r.stderr,
    `plugin "no-such-plugin" not found; searched:\n    ${DIST_BIN}: no file no-such-plugin\n    ${empty}: no file no-such-plugin\n    /nonexistent-cni: no such directory\n`,
  );
  t.match(r.stderr, /--plugin-dir DIR\[:DIR\] \(or CNI_PATH\)/);
  t.same(await nodeVeths(n.node), [], 'bridge ran, then got DEL');
  t.same(allocated(n.dataDir), []);
});

t.test('a network not found names the conf dir and the networks in it; exit 3', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-a.conflist': bridgeList('alpha', d), '20-b.conflist': bridgeList('beta', d) }));
  const r = await n.cni(['add', 'gamma', '/run/netns/whatever']);
  t.equal(r.code, 3);
  t.match(r.stderr, `network "gamma" not found in ${n.confDir}\n`);
  t.match(r.stderr, /alpha +.*10-a\.conflist\n +beta +.*20-b\.conflist/);
});

t.test('usage errors exit 2 and say what is expected', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d) }));
  const port = await n.cni(['add', 'net', '/run/netns/x', '--port', '80']);
  t.equal(port.code, 2);
  t.match(port.stderr, /--port 80: expected HOST:CONTAINER\[\/tcp\|udp\|sctp\]\[@hostIP\]/);
  const id = await n.cni(['add', 'net', '/run/netns/x', '--container-id', 'a b']);
  t.equal(id.code, 2);
  t.match(id.stderr, /invalid characters in containerID/);
  const verb = await cniRun(['attach']);
  t.equal(verb.code, 2);
  t.match(verb.stderr, /unknown command 'attach'/);
});

t.test('CHECK of an attachment never added says which cache entry it looked for; exit 3', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d) }));
  const pod = await makeNetns(t, 'clipod');
  const r = await n.cni(['check', 'net', pod.path, '--container-id', 'never-added']);
  t.equal(r.code, 3);
  t.match(r.stderr, `no cached ADD result for network "net", container never-added, interface eth0 in ${join(n.cacheDir, 'results')}`);
});

t.test('CHECK of a list older than 0.4.0 is refused (exit 3); with disableCheck it does nothing', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({
    '10-old.conflist': { ...bridgeList('old', d), cniVersion: '0.3.1' },
    '20-nc.conflist': { ...bridgeList('nc', d), disableCheck: true },
  }));
  const pod = await makeNetns(t, 'clipod');
  const old = await n.cni(['check', 'old', pod.path]);
  t.equal(old.code, 3);
  t.match(old.stderr, 'configuration version "0.3.1" does not support the CHECK command');
  const nc = await n.cni(['check', 'nc', pod.path, '--container-id', 'never-added']);
  t.equal(nc.code, 0, nc.stderr);
  t.match(nc.stderr, 'network "nc" sets disableCheck: nothing to check');
});

t.test('GC: attachments not listed --valid are deleted as libcni does; listed ones stay', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d) }));
  const pods = [await makeNetns(t, 'clipod'), await makeNetns(t, 'clipod'), await makeNetns(t, 'clipod')];
  for (const [i, p] of pods.entries()) t.equal((await n.cni(['add', 'net', p.path, '--container-id', `c${i}`])).code, 0, `add c${i}`);
  t.equal(allocated(n.dataDir).length, 3);
  const gc = await n.cni(['gc', 'net', '--valid', 'c0:eth0', '--valid', 'c2:eth0']);
  t.equal(gc.code, 0, gc.stderr);
  t.match(gc.stderr, /deleted stale attachment c1 eth0/);
  t.same(readdirSync(join(n.cacheDir, 'results')).sort(), ['net-c0-eth0', 'net-c2-eth0'], 'the cache keeps the valid ones');
  t.equal(allocated(n.dataDir).length, 2, 'the stale one released its address');
  t.same(
    (await ipJson<{ ifname: string }[]>(pods[1]!.name, ['link', 'show'])).map((l) => l.ifname),
    ['lo'],
    "the stale pod's interface is gone",
  );
  t.equal((await nodeVeths(n.node)).length, 2, 'the valid pods keep their veths');
  for (const [i, p] of pods.entries()) t.equal((await n.cni(['del', 'net', p.path, '--container-id', `c${i}`])).code, 0, `del c${i}`);
  t.same(allocated(n.dataDir), []);
});

t.test('STATUS of a 1.1.0 list asks every plugin; the version line names our spec versions', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d), '20-old.conflist': { ...bridgeList('old', d), cniVersion: '1.0.0' } }));
  const ok = await n.cni(['status', 'net']);
  t.equal(ok.code, 0, ok.stderr);
  t.equal(ok.stdout, 'network "net" is ready (bridge answered STATUS)\n');
  const old = await n.cni(['status', 'old']);
  t.equal(old.code, 0);
  t.match(old.stdout, /cniVersion 1\.0\.0: STATUS exists from 1\.1\.0 on/);
  const v = await cniRun(['version']);
  t.equal(v.code, 0);
  t.match(v.stdout, /^cni-run \d+\.\d+\.\d+ \(cni-ts\)\nCNI spec versions: 0\.1\.0, 0\.2\.0, 0\.3\.0, 0\.3\.1, 0\.4\.0, 1\.0\.0, 1\.1\.0\n$/);
});

t.test('a bare netns name is taken from /run/netns, and gives the container id of its full path', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d) }));
  const pod = await makeNetns(t, 'clipod');
  t.equal((await n.cni(['add', 'net', pod.name])).code, 0);
  const [file] = readdirSync(join(n.cacheDir, 'results'));
  const del = await n.cni(['del', 'net', pod.path]);
  t.equal(del.code, 0, del.stderr);
  t.same(readdirSync(join(n.cacheDir, 'results')), [], `the DEL by full path found the entry ${file} made by name`);
  t.same(allocated(n.dataDir), []);
});

t.test('DEL of a pod whose network left the conf dir uses the config its ADD cached', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d) }));
  const pod = await makeNetns(t, 'clipod');
  t.equal((await n.cni(['add', 'net', pod.path])).code, 0);
  rmSync(join(n.confDir, '10-net.conflist'));
  const check = await n.cni(['check', 'net', pod.path]);
  t.equal(check.code, 3, 'CHECK needs the network in the conf dir');
  const del = await n.cni(['del', 'net', pod.path]);
  t.equal(del.code, 0, del.stderr);
  t.match(del.stderr, `network "net" is not in ${n.confDir}: using the config its ADD cached in ${join(n.cacheDir, 'results', 'net-')}`);
  t.same(await nodeVeths(n.node), []);
  t.same(allocated(n.dataDir), []);
  t.same(cached(n), []);
  const again = await n.cni(['del', 'net', pod.path]);
  t.equal(again.code, 3, 'with neither the config nor a cache entry, DEL cannot know the plugins: network not found');
});

t.test('a list of cniVersion 1.2.0 offering cniVersions ["1.1.0"] runs at 1.1.0, as libcni picks it', { skip: needsRoot }, async (t) => {
  const n = await node(t, (d) => ({ '10-net.conflist': { ...bridgeList('net', d), cniVersion: '1.2.0', cniVersions: ['1.1.0'] } }));
  const pod = await makeNetns(t, 'clipod');
  const add = await n.cni(['add', 'net', pod.path]);
  t.equal(add.code, 0, add.stderr);
  t.match(JSON.parse(add.stdout || '{}'), { cniVersion: '1.1.0', ips: [{ address: /^10\.77\.0\.\d+\/24$/ }] });
  t.equal((await n.cni(['check', 'net', pod.path])).code, 0);
  t.equal((await n.cni(['del', 'net', pod.path])).code, 0);
  t.same(allocated(n.dataDir), []);
});

t.test("cnitool's CNI_ARGS and CAP_ARGS variables are honoured; the command line wins", { skip: needsRoot }, async (t) => {
  const portmap = { type: 'portmap', capabilities: { portMappings: true }, backend: 'iptables' };
  const n = await node(t, (d) => ({ '10-net.conflist': bridgeList('net', d, {}, [portmap]) }));
  const pod = await makeNetns(t, 'clipod');
  const env = {
    CNI_ARGS: 'IgnoreUnknown=1;IP=10.77.0.42',
    CAP_ARGS: JSON.stringify({ portMappings: [{ hostPort: 18080, containerPort: 80, protocol: 'tcp' }] }),
  };
  const add = await n.cni(['add', 'net', pod.path], env);
  t.equal(add.code, 0, add.stderr);
  t.match(JSON.parse(add.stdout || '{}'), { ips: [{ address: '10.77.0.42/24' }] }, 'host-local got IP= from CNI_ARGS');
  const nat = await nsRun(n.node.name, 'iptables-save', ['-t', 'nat']);
  t.match(nat, /--dport 18080 .*-j DNAT --to-destination 10\.77\.0\.42:80/, 'portmap got portMappings from CAP_ARGS');
  t.equal((await n.cni(['del', 'net', pod.path], env)).code, 0);
  t.notMatch(await nsRun(n.node.name, 'iptables-save', ['-t', 'nat']), /18080/, 'DEL removed the mapping');

  const other = await makeNetns(t, 'clipod');
  const flags = await n.cni(['add', 'net', other.path, '--args', 'IgnoreUnknown=1;IP=10.77.0.43', '--port', '18081:80'], env);
  t.equal(flags.code, 0, flags.stderr);
  t.match(JSON.parse(flags.stdout || '{}'), { ips: [{ address: '10.77.0.43/24' }] }, '--args replaces CNI_ARGS');
  const nat2 = await nsRun(n.node.name, 'iptables-save', ['-t', 'nat']);
  t.match(nat2, /--dport 18081 /, '--port replaces the portMappings of CAP_ARGS');
  t.notMatch(nat2, /18080/);
  t.equal((await n.cni(['del', 'net', other.path])).code, 0);
  t.same(allocated(n.dataDir), []);

  const bad = await n.cni(['add', 'net', other.path], { CNI_ARGS: 'IP' });
  t.equal(bad.code, 2, 'a malformed CNI_ARGS is a usage error');
  t.match(bad.stderr, /CNI_ARGS \(environment\): invalid CNI_ARGS pair "IP"/);
});

// libcni v1.3 (https://github.com/containernetworking/cni/blob/v1.3.0/libcni/conf.go, cni#928):
// a list's plugins, then those of <conf dir>/<network name>/*.conf in name order, unless it sets
// loadOnlyInlinedPlugins. tuning after bridge shows the order (it works on bridge's result).
t.test("a network's plugins from its folder, in file-name order; loadOnlyInlinedPlugins ignores the folder", { skip: needsRoot }, async (t) => {
  const tuningData = tempDir(t, 'cnits-tuning-');
  const n = await node(t, (d) => ({
    '10-folded.conflist': { cniVersion: '1.1.0', name: 'folded' },
    '20-inlined.conflist': { ...bridgeList('inlined', d), loadOnlyInlinedPlugins: true },
  }));
  const bridge = bridgeList('folded', n.dataDir).plugins[0];
  const folder = (network: string, files: Record<string, object>) => {
    mkdirSync(join(n.confDir, network));
    for (const [f, c] of Object.entries(files)) writeFileSync(join(n.confDir, network, f), JSON.stringify(c));
  };
  // Only *.conf is read: the .json would make ADD fail (no such plugin) if it were.
  folder('folded', {
    '20-tuning.conf': { type: 'tuning', mtu: 1400, dataDir: tuningData },
    '10-bridge.conf': bridge as object,
    '30-not-read.json': { type: 'no-such-plugin' },
  });
  folder('inlined', { '10-tuning.conf': { type: 'tuning', mtu: 1400, dataDir: tuningData }, '20-missing.conf': { type: 'no-such-plugin' } });
  const eth0 = async (ns: string) => (await ipJson<{ mtu: number }[]>(ns, ['link', 'show', 'eth0']))[0]?.mtu;

  const pod = await makeNetns(t, 'clipod');
  const add = await n.cni(['add', 'folded', pod.path]);
  t.equal(add.code, 0, add.stderr);
  t.match(JSON.parse(add.stdout || '{}'), { ips: [{ address: /^10\.77\.0\.\d+\/24$/ }] }, 'bridge from the folder gave the pod its address');
  t.equal(await eth0(pod.name), 1400, 'tuning from the folder ran after it');
  const status = await n.cni(['status', 'folded']);
  t.equal(status.stdout, 'network "folded" is ready (bridge, tuning answered STATUS)\n', status.stderr);
  t.equal((await n.cni(['check', 'folded', pod.path])).code, 0);
  const del = await n.cni(['del', 'folded', pod.path]);
  t.equal(del.code, 0, del.stderr);
  t.same(await nodeVeths(n.node), [], "the folder's bridge got DEL");
  t.same(readdirSync(tuningData), [], "the folder's tuning got DEL (its saved file is gone)");

  // The cache keeps the list file as written, with no plugins in it: a DEL after the list left
  // the conf dir takes them from the folder again.
  const again = await makeNetns(t, 'clipod');
  t.equal((await n.cni(['add', 'folded', again.path])).code, 0);
  rmSync(join(n.confDir, '10-folded.conflist'));
  const cachedDel = await n.cni(['del', 'folded', again.path]);
  t.equal(cachedDel.code, 0, cachedDel.stderr);
  t.match(cachedDel.stderr, 'using the config its ADD cached');
  t.same(await nodeVeths(n.node), [], 'bridge got DEL');
  t.same(readdirSync(tuningData), [], 'tuning got DEL');

  const other = await makeNetns(t, 'clipod');
  const inlined = await n.cni(['add', 'inlined', other.path]);
  t.equal(inlined.code, 0, inlined.stderr);
  t.equal(await eth0(other.name), 1500, 'the folder of a loadOnlyInlinedPlugins list is not read');
  t.equal((await n.cni(['del', 'inlined', other.path])).code, 0);
  t.same(allocated(n.dataDir), []);
  t.same(cached(n), []);
});
