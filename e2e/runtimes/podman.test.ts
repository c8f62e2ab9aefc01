// `podman run -p` on our plugins alone. Podman (CNI backend) writes its own list for a network
// it creates (bridge, portmap, firewall, tuning) and runs it with libcni from a plugin dir that
// holds only our executables; a container with busybox httpd publishes a port, which answers
// from the node; `podman rm` and `podman network rm` then leave nothing of the container's network.
// Podman has a storage, config and network dir of the test's own (helpers/podman.ts) and runs
// in a throwaway netns that plays the node, so its bridge and rules land there. One change is
// made to Podman's list: host-local's dataDir points into a temp dir, so the test never writes
// the host's /var/lib/cni/networks (libcni's own result cache there is Podman's, not settable).
import t from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CNITOOL_CACHE_DIR } from '../helpers/cnitool.ts';
import { makeNetns } from '../helpers/netns.ts';
import { attachmentTraces, links } from '../helpers/node-state.ts';
import { importBusyboxImage, podmanOnNode } from '../helpers/podman.ts';
import { httpBody } from '../helpers/portmap.ts';
import { needsRoot, run } from '../../test-support/sh.ts';
import { NO_OCI_RUNTIME } from '../../test-support/skip-reasons.ts';
import { inSubnet, pings } from '../helpers/topology.ts';

const NETWORK = 'cnits-podman';
const SUBNET = '10.89.0.0/24';
const GATEWAY = '10.89.0.1';
const HOST_PORT = 18090;
const IMAGE = 'localhost/cnits-busybox:latest';
const PAGE = `served by busybox httpd in a podman container ${process.pid}\n`;

/** Podman's own words when the OCI runtime (not the network setup, which runs before it) failed. */
const ociRuntimeFailure = (stderr: string): string | undefined => /^Error: .*\bOCI (runtime|permission denied)\b.*$/m.exec(stderr)?.[0];

t.test('podman run -p on our plugins alone: network create, a published port, inspect, rm, network rm', { skip: needsRoot }, async (t) => {
  const node = await makeNetns(t, 'pmnode');
  await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
  const podman = podmanOnNode(t, node);
  await importBusyboxImage(t, podman, IMAGE, { 'www/index.html': PAGE });

  const create = await podman(['network', 'create', '--subnet', SUBNET, NETWORK]);
  t.equal(create.code, 0, `podman network create: ${create.stderr}`);
  const file = join(podman.networkDir, `${NETWORK}.conflist`);
  const list = JSON.parse(readFileSync(file, 'utf8')) as { plugins: Record<string, any>[] };
  t.same(
    list.plugins.map((p) => p['type']),
    ['bridge', 'portmap', 'firewall', 'tuning'],
    "Podman's list: bridge, portmap, firewall, tuning",
  );
  t.match(list.plugins[0], { ipam: { type: 'host-local', ranges: [[{ subnet: SUBNET, gateway: GATEWAY }]] } }, 'host-local with the subnet asked for');
  list.plugins[0]!['ipam'].dataDir = podman.ipamDir;
  writeFileSync(file, JSON.stringify(list, null, 2));

  const started = await podman([
    'run',
    '--detach',
    ...podman.runOptions,
    '--network',
    NETWORK,
    '--publish',
    `${HOST_PORT}:80`,
    IMAGE,
    'busybox',
    'sleep',
    '3600',
  ]);
  const runtimeFailure = started.code === 0 ? undefined : ociRuntimeFailure(started.stderr);
  if (runtimeFailure !== undefined) return void t.pass('podman run', { skip: `${NO_OCI_RUNTIME}: ${runtimeFailure}` });
  t.equal(started.code, 0, `podman run: ${started.stderr}`);
  const id = started.stdout.trim();
  // busybox httpd listens before it goes to the background, so when exec returns it serves
  // (`podman run -d … httpd -f` would return before the server listens)
  const httpd = await podman(['exec', id, 'busybox', 'httpd', '-p', '80', '-h', '/www']);
  t.equal(httpd.code, 0, `podman exec: httpd listens on port 80: ${httpd.stderr}`);
  const [inspected] = JSON.parse((await podman(['inspect', id])).stdout) as {
    NetworkSettings: { SandboxKey: string; Networks: Record<string, { IPAddress: string }> };
  }[];
  const ip = inspected?.NetworkSettings.Networks[NETWORK]?.IPAddress ?? '';
  const sandbox = inspected?.NetworkSettings.SandboxKey ?? '';
  t.ok(inSubnet(ip, SUBNET), `podman inspect: the container's address ${ip} is in ${SUBNET}`);
  t.ok(await pings(node.name, ip), `the node reaches the container at ${ip}`);
  for (const addr of ['127.0.0.1', GATEWAY]) {
    t.equal(await httpBody(node.name, `http://${addr}:${HOST_PORT}/`), PAGE, `-p ${HOST_PORT}:80: the node gets the page from ${addr}:${HOST_PORT}`);
  }

  const rm = await podman(['rm', '--force', '--time', '0', id]);
  t.equal(rm.code, 0, `podman rm: ${rm.stderr}`);
  const netRm = await podman(['network', 'rm', NETWORK]);
  t.equal(netRm.code, 0, `podman network rm: ${netRm.stderr}`);
  const traces = await attachmentTraces({
    node: node.name,
    network: NETWORK,
    containerId: id,
    dataDir: podman.ipamDir,
    result: { ips: [{ address: ip }] },
    cacheFile: join(CNITOOL_CACHE_DIR, 'results', `${NETWORK}-${id}-eth0`),
  });
  t.same(traces, {}, "nothing of the container's network is left: address, masquerade, port mapping and firewall rules, cache entry");
  t.same(
    (await links(node.name)).map((l) => l.ifname),
    ['lo'],
    'the node has only lo: the veth went with the container, the bridge with the network',
  );
  t.notOk(existsSync(sandbox), `the container's netns ${sandbox} is gone`);
  t.notOk(existsSync(file), "the network's config file is gone");
});
