// portmap and the bridge's ipMasq on a node with nftables and no iptables binary, with no
// backend named (a Kubernetes-style list), driven by the reference libcni client inside a
// netns that plays the node: ADD maps the hostPort and masquerades the pod, DEL leaves nothing
// of the pod in the node's ruleset, several times over. The reference fails ADD outright on
// such a node (https://github.com/containernetworking/plugins/issues/1280).
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cnitool, cnitoolContainerId, cnitoolMissing, type CnitoolRun } from '../helpers/cnitool.ts';
import { IPTABLES_TOOLS, iptablesHidden } from '../helpers/no-iptables.ts';
import { portmapList, startNamedServer, tcpAnswer } from '../helpers/portmap.ts';
import { DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot, nsRun, tryRun, withBindsOver } from '../../test-support/sh.ts';
import { makePod, makeTopology, UPLINK } from '../helpers/topology.ts';

// Rounds on the same pod: a rule a DEL left behind would also come before the next ADD's and
// send the hostPort to the pod's old address.
const ROUNDS = 4;
const PORT_MAPPINGS = [
  { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
  { hostPort: 8080, containerPort: 81, protocol: 'udp' },
];

interface NftRule {
  family: string;
  table: string;
  chain: string;
  comment?: string;
  expr: unknown[];
}

/** Every rule of the node's ruleset that names the pod: its container id in a comment, or one of its addresses. */
async function rulesOfPod(node: string, containerId: string, addrs: readonly string[]): Promise<string[]> {
  const { nftables } = JSON.parse(await nsRun(node, 'nft', ['-j', 'list', 'ruleset'])) as { nftables: { rule?: NftRule }[] };
  return nftables
    .flatMap((o) => (o.rule ? [o.rule] : []))
    .filter((r) => r.comment?.includes(containerId) || addrs.some((a) => JSON.stringify(r.expr).includes(`"${a}"`)))
    .map((r) => `${r.family} ${r.table} ${r.chain}: ${r.comment ?? ''} ${JSON.stringify(r.expr)}`);
}

t.test('nftables-only node, no backend named: cnitool ADD maps and masquerades, DEL leaves nothing of the pod', { skip: needsRoot }, async (t) => {
  t.equal(cnitoolMissing, undefined, 'cnitool is built');
  if (cnitoolMissing !== undefined) return;
  const hidden = iptablesHidden(t);
  const [cmd, ...args] = withBindsOver(hidden, ['sh', '-c', 'for n; do command -v "$n"; done; echo "@@nft $(command -v nft)"', 'sh', ...IPTABLES_TOOLS]);
  const look = await tryRun(cmd!, args);
  t.equal(look.stdout, '@@nft /usr/sbin/nft\n', `control: no iptables tool on PATH there, nft is (${look.stderr})`);

  const { node, remote, dataDir } = await makeTopology(t, { remote: true });
  const pod = await makePod(t);
  const confDir = tempDir(t, 'cnits-netconf-');
  writeFileSync(join(confDir, '10-podnet.conflist'), JSON.stringify(portmapList({ dataDir, v6: true })));
  const run: CnitoolRun = {
    confDir,
    cniPath: [DIST_BIN],
    nodeNetns: node.name,
    capArgs: { portMappings: PORT_MAPPINGS },
    cacheDir: tempDir(t, 'cnits-cache-'),
    binds: hidden,
  };
  const id = cnitoolContainerId(pod.path);
  await startNamedServer(t, remote!.name, 'remote', { tcp: 8080, udp: 8081 });

  for (let round = 1; round <= ROUNDS; round++) {
    const add = await cnitool(run, 'add', 'podnet', pod.path);
    t.equal(add.code, 0, `round ${round}: ADD succeeds (${add.stderr})`);
    if (add.code !== 0) return;
    const addrs = (JSON.parse(add.stdout) as { ips: { address: string }[] }).ips.map((ip) => ip.address.split('/')[0]!);
    if (round === 1) await startNamedServer(t, pod.name, 'pod', { tcp: 80, udp: 81 });
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 8080), 'pod', `round ${round}: the hostPort answers from another netns`);
    t.equal(await tcpAnswer(pod.name, UPLINK.remoteV4, 8080), 'remote', `round ${round}: the pod reaches beyond the node (masqueraded: no route back to it)`);
    const rules = await rulesOfPod(node.name, id, addrs);
    t.ok(
      rules.some((r) => r.startsWith('ip cni_hostport hostports:')),
      `round ${round}: control: the pod's rules are found while it is there, its DNAT in nftables' ip cni_hostport`,
      { found: rules },
    );

    const del = await cnitool(run, 'del', 'podnet', pod.path);
    t.equal(del.code, 0, `round ${round}: DEL succeeds (${del.stderr})`);
    t.same(await rulesOfPod(node.name, id, addrs), [], `round ${round}: after DEL no rule of the node names the pod (its id or its addresses)`);
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 8080), '', `round ${round}: after DEL the hostPort no longer answers`);
  }
});

// A DEL without portMappings (cnitool del without CAP_ARGS; a runtime that lost the pod's
// metadata) does nothing on the reference (plugins#510). On nftables the rules carry the
// container id and our ADD marks the network's pod addresses, so such a DEL still finds them.
t.test('nftables-only node: a DEL without portMappings (cnitool, no CAP_ARGS) still leaves nothing of the pod', { skip: needsRoot }, async (t) => {
  t.equal(cnitoolMissing, undefined, 'cnitool is built');
  if (cnitoolMissing !== undefined) return;
  const { node, remote, dataDir } = await makeTopology(t, { remote: true });
  const pod = await makePod(t);
  const confDir = tempDir(t, 'cnits-netconf-');
  writeFileSync(join(confDir, '10-podnet.conflist'), JSON.stringify(portmapList({ dataDir, v6: true })));
  const add: CnitoolRun = {
    confDir,
    cniPath: [DIST_BIN],
    nodeNetns: node.name,
    capArgs: { portMappings: PORT_MAPPINGS },
    cacheDir: tempDir(t, 'cnits-cache-'),
    binds: iptablesHidden(t),
  };
  const { capArgs: _, ...del } = add;
  const id = cnitoolContainerId(pod.path);
  await startNamedServer(t, remote!.name, 'remote', { tcp: 8080, udp: 8081 });

  for (let round = 1; round <= 2; round++) {
    const added = await cnitool(add, 'add', 'podnet', pod.path);
    t.equal(added.code, 0, `round ${round}: ADD succeeds (${added.stderr})`);
    if (added.code !== 0) return;
    const addrs = (JSON.parse(added.stdout) as { ips: { address: string }[] }).ips.map((ip) => ip.address.split('/')[0]!);
    if (round === 1) await startNamedServer(t, pod.name, 'pod', { tcp: 80, udp: 81 });
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 8080), 'pod', `round ${round}: control: the hostPort answers from another netns`);
    t.ok(
      (await rulesOfPod(node.name, id, addrs)).some((r) => r.startsWith('ip cni_hostport hostports:')),
      `round ${round}: control: the pod's DNAT is in ip cni_hostport`,
    );

    const deleted = await cnitool(del, 'del', 'podnet', pod.path);
    t.equal(deleted.code, 0, `round ${round}: DEL without CAP_ARGS succeeds (${deleted.stderr})`);
    t.same(await rulesOfPod(node.name, id, addrs), [], `round ${round}: after it no rule of the node names the pod (its id or its addresses)`);
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 8080), '', `round ${round}: after it the hostPort no longer answers`);
  }
});
