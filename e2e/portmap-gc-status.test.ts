// GC and STATUS (spec 1.1.0; the reference portmap has neither).
import t from 'tap';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execRaw, pluginEnv } from '../tools/libcni/invoke.ts';
import { attachment, gc } from './helpers/conflist.ts';
import { BASE_ENV, DIST_BIN } from './helpers/plugins.ts';
import { BACKENDS, portmapList, portmapRulesOf, startNamedServer, tcpAnswer } from './helpers/portmap.ts';
import { needsRoot } from './helpers/sh.ts';
import { makePod, makeTopology, UPLINK } from './helpers/topology.ts';

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
