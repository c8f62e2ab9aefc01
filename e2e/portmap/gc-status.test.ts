// GC and STATUS (spec 1.1.0; the reference portmap has neither).
import t from 'tap';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execRaw, pluginEnv } from '../../tools/libcni/invoke.ts';
import { attachment, gc } from '../helpers/conflist.ts';
import { BASE_ENV, DIST_BIN } from '../helpers/plugins.ts';
import { BACKENDS, nftPortmapOf, portmapList, portmapRulesOf, startNamedServer, tcpAnswer } from '../helpers/portmap.ts';
import { needsRoot, nsRun } from '../../test-support/sh.ts';
import { makePod, makeTopology, UPLINK } from '../helpers/topology.ts';

for (const backend of BACKENDS) {
  t.test(`${backend}: GC removes the rules of containers not listed, and only those`, { skip: needsRoot }, async (t) => {
    const { node, remote, dataDir } = await makeTopology(t, { remote: true });
    const list = portmapList({ dataDir, backend, cniVersion: '1.1.0' });
    const pods = [await makePod(t), await makePod(t)];
    const as = pods.map((p, i) =>
      attachment(
        list,
        {
          containerId: `pmgc-${backend}-${i}-${process.pid}`,
          netns: p.path,
          ifname: 'eth0',
          capabilityArgs: { portMappings: [{ hostPort: 9100 + i, containerPort: 80, protocol: 'tcp' }] },
        },
        { nodeNetns: node.name },
      ),
    );
    for (const a of as) await a.add();
    await startNamedServer(t, pods[1]!.name, 'kept', { tcp: 80, udp: 81 });
    const [gone, kept] = as as [(typeof as)[0], (typeof as)[0]];
    t.ok((await portmapRulesOf(node.name, 'podnet', gone.conf.containerId)).length > 0, 'control: the stale container has rules');
    await gc(list, [{ containerID: kept.conf.containerId, ifname: 'eth0' }], { nodeNetns: node.name });
    t.same(await portmapRulesOf(node.name, 'podnet', gone.conf.containerId), [], 'the container not listed lost its rules');
    t.ok((await portmapRulesOf(node.name, 'podnet', kept.conf.containerId)).length > 0, 'the listed one kept them');
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 9101), 'kept', 'and its hostPort still answers');
    await kept.del();
  });
}

// Network B next to network A on the same node: its own bridge and subnet, nftables.
function otherNetwork(dataDir: string): Record<string, unknown> {
  const base = portmapList({ dataDir, backend: 'nftables', name: 'othernet', cniVersion: '1.1.0' });
  const [bridge, portmap] = base['plugins'] as Record<string, unknown>[];
  return { ...base, plugins: [{ ...bridge, bridge: 'cni1', ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.245.0.0/24' }]] } }, portmap] };
}

for (const backend of BACKENDS) {
  t.test(`GC of a network on ${backend} leaves the nftables hostPorts of another network and of the Go plugin working`, { skip: needsRoot }, async (t) => {
    const { node, remote, dataDir } = await makeTopology(t, { remote: true });
    const mine = portmapList({ dataDir, backend, cniVersion: '1.1.0' });
    const other = otherNetwork(dataDir);
    const att = (list: object, id: string, hostPort: number) =>
      makePod(t).then((p) => ({
        pod: p,
        a: attachment(
          list,
          {
            containerId: `${id}-${process.pid}`,
            netns: p.path,
            ifname: 'eth0',
            capabilityArgs: { portMappings: [{ hostPort, containerPort: 80, protocol: 'tcp' }] },
          },
          { nodeNetns: node.name },
        ),
      }));
    const gone = await att(mine, 'pmnet-gone', 9100);
    const kept = await att(mine, 'pmnet-kept', 9101);
    const theirs = await att(other, 'pmnet-other', 9200);
    for (const x of [gone, kept]) await x.a.add();
    const theirIp = ((await theirs.a.add()) as { ips: { address: string }[] }).ips[0]!.address.split('/')[0]!;
    await startNamedServer(t, kept.pod.name, 'kept');
    await startNamedServer(t, theirs.pod.name, 'theirs');
    // What the reference's nftables backend (v1.6+) writes for a pod: a DNAT rule commented with the
    // container id alone (Go v1.1.1 here has no nftables backend). This one sends 9300 to B's pod.
    const goId = `go-pod-${process.pid}`;
    await nsRun(node.name, 'nft', [
      'add',
      'rule',
      'ip',
      'cni_hostport',
      'hostports',
      'tcp',
      'dport',
      '9300',
      'dnat',
      'to',
      `${theirIp}:80`,
      'comment',
      `"${goId}"`,
    ]);
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 9200), 'theirs', 'control: the other network hostPort answers');
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 9300), 'theirs', "control: the Go-layout rule's hostPort answers");

    await gc(mine, [{ containerID: kept.a.conf.containerId, ifname: 'eth0' }], { nodeNetns: node.name });

    t.same(await portmapRulesOf(node.name, 'podnet', gone.a.conf.containerId), [], "this network's dead attachment lost its rules");
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 9101), 'kept', "this network's valid attachment still answers");
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 9200), 'theirs', "the other network's hostPort still answers");
    t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 9300), 'theirs', "the Go plugin's hostPort still answers");
    t.equal((await nftPortmapOf(node.name, goId)).length, 1, "the Go plugin's rule is still there");
    for (const x of [kept, theirs, gone]) await x.a.del();
  });
}

for (const backend of BACKENDS) {
  t.test(`${backend}: GC with a null list (libcni's nil slice) collects every attachment of the network`, { skip: needsRoot }, async (t) => {
    const { node, dataDir } = await makeTopology(t);
    const list = portmapList({ dataDir, backend, cniVersion: '1.1.0' });
    const pod = await makePod(t);
    const a = attachment(
      list,
      {
        containerId: `pmnull-${backend}-${process.pid}`,
        netns: pod.path,
        ifname: 'eth0',
        capabilityArgs: { portMappings: [{ hostPort: 9150, containerPort: 80, protocol: 'tcp' }] },
      },
      { nodeNetns: node.name },
    );
    await a.add();
    t.ok((await portmapRulesOf(node.name, 'podnet', a.conf.containerId)).length > 0, 'control: the container has rules');
    const conf = { ...(list['plugins'] as object[])[1], name: 'podnet', cniVersion: '1.1.0', 'cni.dev/valid-attachments': null, 'cni.dev/attachments': null };
    const r = await execRaw(join(DIST_BIN, 'portmap'), pluginEnv({ command: 'GC', cniPath: [DIST_BIN], baseEnv: BASE_ENV }), JSON.stringify(conf), [
      '/usr/sbin/ip',
      'netns',
      'exec',
      node.name,
    ]);
    t.equal(r.code, 0, `GC succeeds ${r.stdout}`);
    t.same(await portmapRulesOf(node.name, 'podnet', a.conf.containerId), [], 'null: nothing is valid, the rules are gone');
    await a.del();
  });
}

t.test('STATUS reports a backend whose tool is missing (code 50), and passes when it is there', { skip: needsRoot }, async (t) => {
  const { node } = await makeTopology(t);
  const bare = mkdtempSync(join(tmpdir(), 'cnits-nopath-'));
  t.teardown(() => rmSync(bare, { recursive: true, force: true }));
  symlinkSync(process.execPath, join(bare, 'node'));
  const status = (backend: string, path: string) =>
    execRaw(
      join(DIST_BIN, 'portmap'),
      pluginEnv({ command: 'STATUS', cniPath: [DIST_BIN], baseEnv: { PATH: path } }),
      JSON.stringify({ cniVersion: '1.1.0', name: 'podnet', type: 'portmap', backend }),
      ['/usr/sbin/ip', 'netns', 'exec', node.name],
    );
  for (const backend of ['iptables', 'nftables']) {
    const ok = await status(backend, BASE_ENV['PATH'] as string);
    t.equal(ok.code, 0, `${backend}: STATUS passes with the tools on PATH ${ok.stdout}`);
    const missing = await status(backend, bare);
    t.equal(missing.code, 1, `${backend}: STATUS fails without them`);
    t.equal(JSON.parse(missing.stdout).code, 50, 'code 50, plugin not available');
    t.match(JSON.parse(missing.stdout).msg, backend === 'nftables' ? /"nft" not found/ : /iptables/, 'naming the tool');
  }
});
