// The image as a cluster gets it (npm run image, deploy/daemonset.yaml): it holds the Bun form and
// the libraries its binary loads, nothing else; its init container, run by Podman with the
// manifest's arguments, mounts and security settings on a node whose /opt/cni/bin and
// /etc/cni/net.d are empty, installs the programs and writes the ConfigMap's template, filled, as
// the node's conflist; and the reference runtime client, cnitool, then runs the Kubernetes chain
// (bridge and host-local, portmap, bandwidth) from that plugin dir with that very conflist.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { cnitool, cnitoolContainerId, cnitoolMissing } from '../helpers/cnitool.ts';
import { CONFIG_MAP_DATA, imageUnderTest, INIT, makeNodeDirs, podman, runContainer } from '../helpers/image.ts';
import { makeNetns } from '../helpers/netns.ts';
import { attachmentTraces } from '../helpers/node-state.ts';
import { tempDir } from '../helpers/plugins.ts';
import { inSubnet, makeTopology, pings } from '../helpers/topology.ts';
import { BINARY_PROGRAM, PROGRAM_NAMES } from '../../plugins/registry.ts';
import { installArgs } from '../../test-support/install-args.ts';
import { needsRoot } from '../../test-support/sh.ts';

// What the init container gets as arguments, read from the manifest.
const ARGS = installArgs(INIT.args ?? []);
const [TEMPLATE_KEY = ''] = Object.keys(CONFIG_MAP_DATA);
const DIST_BUN_BIN = join(import.meta.dirname, '..', '..', 'dist', 'bun', 'bin');

t.test('the image holds dist/bun/bin as built and the libraries the binary loads, nothing else', { skip: needsRoot }, async (t) => {
  const image = await imageUnderTest();
  if ('missing' in image) return void t.fail(image.missing);
  const mounted = await podman(['image', 'mount', image.id]);
  t.equal(mounted.code, 0, `podman image mount: ${mounted.stderr}`);
  const root = mounted.stdout.trim();
  t.teardown(async () => void (await podman(['image', 'unmount', image.id])));
  const files = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(root.length));
  const entrypoint = (JSON.parse((await podman(['image', 'inspect', '--format', '{{json .Config.Entrypoint}}', image.id])).stdout) as string[])[0] ?? '';
  const binDir = join(entrypoint, '..');
  t.same(
    files
      .filter((f) => f.startsWith(`${binDir}/`))
      .map((f) => f.slice(binDir.length + 1))
      .sort(),
    readdirSync(DIST_BUN_BIN).sort(),
    `${binDir} holds what dist/bun/bin holds`,
  );
  const starter = statSync(join(root, binDir, 'bridge')).ino;
  for (const p of PROGRAM_NAMES.filter((n) => n !== BINARY_PROGRAM))
    t.equal(statSync(join(root, binDir, p)).ino, starter, `${p} is a hard link of the one starter`);
  t.not(statSync(join(root, entrypoint)).ino, starter, 'the entrypoint is the binary, not a starter');
  const others = files.filter((f) => !f.startsWith(`${binDir}/`));
  t.ok(others.length > 0, 'the binary needs shared libraries: they are there');
  for (const f of others) t.match(f, /^\/lib(64)?\/([\w-]+\/)?(ld-linux-x86-64\.so\.2|lib\w+\.so\.\d+)$/, `${f} is a shared library or the loader`);
});

t.test('the init container installs into empty node dirs; cnitool runs the Kubernetes chain from them', { skip: needsRoot }, async (t) => {
  if (cnitoolMissing !== undefined) return void t.fail(cnitoolMissing);
  const image = await imageUnderTest();
  if ('missing' in image) return void t.fail(image.missing);
  const node = makeNodeDirs(t);
  const [binDir, confDir] = [node.hostPaths['/opt/cni/bin'] ?? '', node.hostPaths['/etc/cni/net.d'] ?? ''];

  const { result } = await runContainer(t, { id: image.id, c: INIT, node });
  t.equal(result.code, 0, `the init container succeeds: ${result.stdout}${result.stderr}`);
  t.same(
    readdirSync(binDir)
      .filter((f) => !f.startsWith('.'))
      .sort(),
    readdirSync(DIST_BUN_BIN).sort(),
    "the node's /opt/cni/bin holds every program and the binary",
  );
  const written = readdirSync(confDir);
  t.same(written, [TEMPLATE_KEY], `one conflist in /etc/cni/net.d, ${TEMPLATE_KEY}`);
  const list = JSON.parse(readFileSync(join(confDir, TEMPLATE_KEY), 'utf8')) as {
    name: string;
    plugins: { type: string; ipam?: { ranges: { subnet: string }[][] } }[];
  };
  const subnet = ARGS.set['POD_SUBNET'] ?? '';
  t.equal(list.plugins[0]?.ipam?.ranges[0]?.[0]?.subnet, subnet, `the subnet is the --set value, ${subnet}`);
  t.same(
    list.plugins.map((p) => p.type),
    ['bridge', 'portmap', 'bandwidth'],
  );

  // The node's netns, a pod; cnitool's cache dir, and so host-local's default dataDir under it, the test's own.
  const { node: nodeNs } = await makeTopology(t);
  const pod = await makeNetns(t, 'impod');
  const cacheDir = tempDir(t, 'cnits-cache-');
  const capArgs = { portMappings: [{ hostPort: 18093, containerPort: 80, protocol: 'tcp' }] };
  const call = (verb: string) => cnitool({ confDir, cniPath: [binDir], nodeNetns: nodeNs.name, cacheDir, capArgs }, verb, list.name, pod.path);
  const add = await call('add');
  t.equal(add.code, 0, `cnitool add: ${add.stdout}${add.stderr}`);
  t.teardown(async () => void (await call('del')));
  const r = JSON.parse(add.stdout) as { ips?: { address: string }[]; interfaces?: { name: string; sandbox?: string }[] };
  const ip = r.ips?.[0]?.address.split('/')[0] ?? '';
  t.ok(inSubnet(ip, subnet), `the pod's address ${ip} is in ${subnet}`);
  t.ok(await pings(nodeNs.name, ip), `the node reaches the pod at ${ip}`);
  const check = await call('check');
  t.equal(check.code, 0, `cnitool check: ${check.stderr}`);
  const del = await call('del');
  t.equal(del.code, 0, `cnitool del: ${del.stderr}`);
  const traces = await attachmentTraces({
    node: nodeNs.name,
    network: list.name,
    containerId: cnitoolContainerId(pod.path),
    pod: pod.name,
    dataDir: join(cacheDir, 'networks'),
    result: r,
    cacheFile: join(cacheDir, 'results', `${list.name}-${cnitoolContainerId(pod.path)}-eth0`),
  });
  t.same(traces, {}, 'DEL left nothing: veth, address, masquerade and port mapping rules, cached result');
});
