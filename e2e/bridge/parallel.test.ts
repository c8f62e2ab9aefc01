// 50 pods ADDed at once on one network (one bridge, one host-local store, ipMasq on): all
// succeed with distinct addresses; 50 DELs at once leave nothing behind.
// Judges the implementation CNI_E2E_FORM names (ours by default, go for the reference; see e2e/helpers/impl.ts).
import t from 'tap';
import { addrs, bridgeConf, runBridge, runError, type BridgeResult } from '../helpers/bridge-net.ts';
import { impl } from '../helpers/impl.ts';
import { ipFiles, iptablesMasq, leftovers, nftMasq, nodeVeths } from '../helpers/node-state.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

const N = 50;

t.test(`[${impl.label}] ${N} parallel ADDs, then ${N} parallel DELs`, { skip: impl.lacks() }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, bridgeFields: { isGateway: true, ipMasq: true } });
  const pods = await Promise.all(Array.from({ length: N }, async (_, i) => ({ ns: await makePod(t), id: `par-${i}` })));

  const adds = await Promise.all(pods.map((p) => runBridge(impl.dir, node.name, 'ADD', conf, p)));
  const failed = adds.map((r, i) => [i, r] as const).filter(([, r]) => r.code !== 0);
  t.same(
    failed.map(([i, r]) => runError(`ADD par-${i}`, r).message),
    [],
    `all ${N} ADDs succeed`,
  );
  const ips = adds.filter((r) => r.code === 0).map((r) => addrs(r.json as BridgeResult).v4);
  t.equal(new Set(ips).size, N, `${N} distinct IPv4 addresses`);
  t.equal(ipFiles(dataDir, 'podnet').length, N, `${N} reservation files`);
  t.equal((await nodeVeths(node.name)).length, N, `${N} host veths`);
  const rules = [...(await iptablesMasq(node.name)), ...(await nftMasq(node.name))];
  t.ok(
    ips.every((ip) => rules.some((l) => l.includes(` ${ip}/`) || l.includes(`saddr ${ip} `))),
    'every pod address has a masquerade rule',
  );

  const dels = await Promise.all(pods.map((p, i) => runBridge(impl.dir, node.name, 'DEL', { ...conf, prevResult: adds[i]?.json }, p)));
  t.same(
    dels
      .map((r, i) => [i, r] as const)
      .filter(([, r]) => r.code !== 0)
      .map(([i, r]) => runError(`DEL par-${i}`, r).message),
    [],
    `all ${N} DELs succeed`,
  );
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'no IP file, no veth, no masquerade rule (iptables and nft) left');
});
