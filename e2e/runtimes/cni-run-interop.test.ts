// cni-run and the reference libcni client act on each other's pods: cnitool (built from
// Debian's CNI source package by scripts/build/build-cnitool.sh) ADDs a pod that cni-run CHECKs and
// DELs, and the reverse, with one conf dir and one result cache. What makes that work: the
// same network lookup, the same container id derived from the netns path, and libcni's cache
// files (cnitool always uses /var/lib/cni, so both do here; the test's files there are
// removed at the end). The chain is the Kubernetes node list with a hostPort and shaping.
import t, { type Test } from 'tap';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cniRun, confDirWith } from '../helpers/cni-run.ts';
import { CNITOOL_CACHE_DIR, cnitool, cnitoolMissing } from '../helpers/cnitool.ts';
import { makeNetns, type TestNetns } from '../helpers/netns.ts';
import { DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { portmapRulesOf, startNamedServer, tcpAnswer } from '../helpers/portmap.ts';
import { ipJson, needsRoot, run } from '../../test-support/sh.ts';

const CACHE_DIR = CNITOOL_CACHE_DIR;
const HOST_PORT = 18082;
// cnitool's CAP_ARGS and cni-run's flags for the same pod: one hostPort, 10M each way.
const CAP_ARGS = {
  portMappings: [{ hostPort: HOST_PORT, containerPort: 80, protocol: 'tcp' }],
  bandwidth: { ingressRate: 10_000_000, ingressBurst: 4_294_967_295, egressRate: 10_000_000, egressBurst: 4_294_967_295 },
};
const FLAGS = ['--port', `${HOST_PORT}:80/tcp`, '--bandwidth', 'in=10M,out=10M'];

interface Setup {
  readonly network: string;
  readonly confDir: string;
  readonly dataDir: string;
  readonly node: TestNetns;
  readonly pod: TestNetns;
}

async function setup(t: Test): Promise<Setup> {
  const network = `cnits-interop-${process.pid}`;
  const dataDir = tempDir(t, 'cnits-ipam-');
  const list = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', '..', 'conf-examples', 'k8s-node.conflist'), 'utf8'));
  list.name = network;
  list.plugins[0].ipam.dataDir = dataDir;
  // Debian's libcni 1.1.2 knows spec versions up to 1.0.0; the example is 1.0.0.
  const { confDir } = confDirWith(t, { '10-k8s.conflist': list });
  const node = await makeNetns(t, 'ionode');
  await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
  const pod = await makeNetns(t, 'iopod');
  // Whatever happens, the test's cache files go.
  t.teardown(() => {
    for (const f of cacheFiles({ network })) rmSync(join(CACHE_DIR, 'results', f), { force: true });
  });
  return { network, confDir, dataDir, node, pod };
}

function cnitoolRun(s: Setup, verb: string) {
  return cnitool({ confDir: s.confDir, cniPath: [DIST_BIN], nodeNetns: s.node.name, capArgs: CAP_ARGS }, verb, s.network, s.pod.path);
}

function cniRunVerb(s: Setup, verb: string, ...extra: string[]) {
  return cniRun([verb, s.network, s.pod.path, '--conf-dir', s.confDir, '--plugin-dir', DIST_BIN, ...extra], { nodeNetns: s.node.name });
}

/** This test's cache files in libcni's results dir (the pod's one is <network>-cnitool-<hash>-eth0). */
function cacheFiles(s: Pick<Setup, 'network'>): string[] {
  try {
    return readdirSync(join(CACHE_DIR, 'results')).filter((f) => f.startsWith(`${s.network}-`));
  } catch {
    return [];
  }
}

async function assertAttached(t: Test, s: Setup, result: { ips: { address: string; gateway: string }[] }): Promise<string> {
  const addrs = (await ipJson<{ addr_info: { local: string; prefixlen: number }[] }[]>(s.pod.name, ['addr', 'show'])).flatMap((l) =>
    l.addr_info.map((i) => `${i.local}/${i.prefixlen}`),
  );
  t.ok(addrs.includes(result.ips[0]!.address), `the pod has ${result.ips[0]!.address}`);
  await startNamedServer(t, s.pod.name, 'pod', { tcp: 80, udp: 81 });
  t.equal(await tcpAnswer(s.node.name, result.ips[0]!.gateway, HOST_PORT), 'pod', 'the hostPort reaches the pod: the capability args arrived');
  const files = cacheFiles(s);
  t.match(files, [new RegExp(`^${s.network}-cnitool-[0-9a-f]{20}-eth0$`)], "one cache file, named as libcni names it, with cnitool's container id");
  const containerId = (files[0] ?? '').slice(s.network.length + 1, -'-eth0'.length);
  // Positive controls for what assertNothingLeft looks for.
  t.not((await portmapRulesOf(s.node.name, s.network, containerId)).length, 0, 'the pod has port mapping rules');
  const ifbs = (await ipJson<{ ifname: string }[]>(s.node.name, ['link', 'show', 'type', 'ifb'])).map((l) => l.ifname);
  t.match(ifbs, [/^bwp/], 'the pod is shaped (an ifb on the node)');
  return containerId;
}

async function assertNothingLeft(t: Test, s: Setup, containerId: string): Promise<void> {
  t.same(cacheFiles(s), [], 'no cached result is left');
  t.same(
    (await ipJson<{ ifname: string }[]>(s.pod.name, ['link', 'show'])).map((l) => l.ifname),
    ['lo'],
    'the pod has only lo',
  );
  const nodeLinks = (await ipJson<{ ifname: string }[]>(s.node.name, ['link', 'show'])).map((l) => l.ifname).filter((n) => /^(veth|bwp)/.test(n));
  t.same(nodeLinks, [], 'no veth or ifb is left on the node');
  t.same(await portmapRulesOf(s.node.name, s.network, containerId), [], 'no port mapping rule is left');
  const ips = readdirSync(s.dataDir, { recursive: true })
    .map(String)
    .filter((f) => /\d+\.\d+\.\d+\.\d+$/.test(f));
  t.same(ips, [], 'no address is allocated');
}

const missing = cnitoolMissing === undefined ? [] : [cnitoolMissing];

t.test('cnitool adds a pod, cni-run checks and deletes it', { skip: needsRoot }, async (t) => {
  t.same(missing, [], 'cnitool is there');
  if (missing.length > 0) return;
  const s = await setup(t);
  const add = await cnitoolRun(s, 'add');
  t.equal(add.code, 0, `cnitool add: ${add.stderr}`);
  const containerId = await assertAttached(t, s, JSON.parse(add.stdout));

  const check = await cniRunVerb(s, 'check');
  t.equal(check.code, 0, `cni-run check of cnitool's pod: ${check.stderr}`);
  // No flags: cni-run takes the capability args from cnitool's cache entry, so portmap and
  // bandwidth remove exactly what they made.
  const del = await cniRunVerb(s, 'del');
  t.equal(del.code, 0, `cni-run del of cnitool's pod: ${del.stderr}`);
  await assertNothingLeft(t, s, containerId);
});

t.test('cni-run adds a pod, cnitool checks and deletes it', { skip: needsRoot }, async (t) => {
  t.same(missing, [], 'cnitool is there');
  if (missing.length > 0) return;
  const s = await setup(t);
  const add = await cniRunVerb(s, 'add', ...FLAGS);
  t.equal(add.code, 0, `cni-run add: ${add.stderr}`);
  const containerId = await assertAttached(t, s, JSON.parse(add.stdout));

  const check = await cnitoolRun(s, 'check');
  t.equal(check.code, 0, `cnitool check of cni-run's pod: ${check.stderr}`);
  const del = await cnitoolRun(s, 'del');
  t.equal(del.code, 0, `cnitool del of cni-run's pod: ${del.stderr}`);
  await assertNothingLeft(t, s, containerId);
});
