// GC (spec 1.1.0) on a bridge + host-local network: attachments the runtime no longer lists
// lose their addresses and masquerade rules; the listed ones keep everything and still work.
// Judges the implementation CNI_E2E_FORM names (ours by default, go for the reference; see e2e/helpers/impl.ts).
import t from 'tap';
import { addPod, addrs, bridgeConf, delPod, POD_V4, type BridgeResult } from '../helpers/bridge-net.ts';
import { gc } from '../helpers/conflist.ts';
import { impl } from '../helpers/impl.ts';
import { ipFiles, leftovers, masqRulesOf } from '../helpers/node-state.ts';
import { DIST_BIN } from '../helpers/plugins.ts';
import { needsRoot, nsExec } from '../../test-support/sh.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';

t.test(`[${impl.label}] GC with 4 valid attachments out of 10 releases the other 6`, { skip: impl.lacks('spec-1.1.0') }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, cniVersion: '1.1.0', bridgeFields: { isGateway: true, ipMasq: true } });
  const { cniVersion, name, ...plugin } = conf;
  const list = { cniVersion, name, plugins: [plugin] };
  const pods = await Promise.all(Array.from({ length: 10 }, async (_, i) => ({ ns: await makePod(t), id: `gc-${i}` })));
  const results = await Promise.all(pods.map((p) => addPod(impl.dir, node.name, conf, p)));
  const nsOf = (i: number) => (pods[i] as { ns: { name: string } }).ns.name;
  const ipOf = (i: number) => addrs(results[i] as BridgeResult).v4 as string;
  t.equal(ipFiles(dataDir, 'podnet').length, 10, '10 addresses allocated');

  const keep = [0, 3, 5, 8];
  await gc(
    list,
    keep.map((i) => ({ containerID: `gc-${i}`, ifname: 'eth0' })),
    { cniPath: [impl.dir], nodeNetns: node.name },
  );

  const files = ipFiles(dataDir, 'podnet');
  for (const [i, p] of pods.entries()) {
    const kept = keep.includes(i);
    const rules = await masqRulesOf(node.name, p.id, [ipOf(i)]);
    if (kept) {
      t.ok(files.includes(ipOf(i)), `${p.id} (valid) keeps its address ${ipOf(i)}`);
      t.ok(rules.length > 0, `${p.id} (valid) keeps its masquerade rules`);
    } else {
      t.notOk(files.includes(ipOf(i)), `${p.id} (gone) has no address file for ${ipOf(i)}`);
      t.same(rules, [], `${p.id} (gone) has no masquerade rule`);
    }
  }
  const [first, ...others] = keep;
  const reach = await Promise.all([...keep.map((i) => pings(nsOf(i), POD_V4.gateway)), ...others.map((i) => pings(nsOf(first as number), ipOf(i)))]);
  t.ok(reach.every(Boolean), `the 4 valid pods still reach the gateway and each other (${reach.join(' ')})`);

  await Promise.all(pods.map((p, i) => delPod(impl.dir, node.name, conf, p, results[i])));
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'after DEL of all 10, nothing is left');
});

/** The chains of table bridge nat in `node` and the comments of its PREROUTING rules. */
async function spoofState(node: string): Promise<{ chains: string[]; jumps: string[] }> {
  const r = await nsExec(node, 'nft', ['-j', 'list', 'table', 'bridge', 'nat']);
  if (r.code !== 0) throw new Error(`nft list failed: ${r.stderr}`);
  const items = (JSON.parse(r.stdout) as { nftables: Record<string, { name?: string; chain?: string; comment?: string }>[] }).nftables;
  return {
    chains: items.flatMap((i) => (i['chain']?.name ? [i['chain'].name] : [])),
    jumps: items.flatMap((i) => (i['rule']?.chain === 'PREROUTING' && i['rule'].comment ? [i['rule'].comment] : [])),
  };
}

t.test('[ours] GC removes the macspoofchk chains of dead attachments of its network only', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const fields = { isGateway: true, macspoofchk: true };
  const mine = bridgeConf({ dataDir, cniVersion: '1.1.0', bridgeFields: fields });
  const other = bridgeConf({ dataDir, cniVersion: '1.1.0', name: 'othernet', bridge: 'cni1', v4: { subnet: '10.246.0.0/24' }, bridgeFields: fields });
  const pod = async (id: string) => ({ ns: await makePod(t), id: `${id}-${process.pid}` });
  const [gone, kept, theirs] = [await pod('spoof-gone'), await pod('spoof-kept'), await pod('spoof-theirs')];
  const results = [
    await addPod(DIST_BIN, node.name, mine, gone),
    await addPod(DIST_BIN, node.name, mine, kept),
    await addPod(DIST_BIN, node.name, other, theirs),
  ];
  const ref = (p: { id: string }) => `${p.id}-eth0`;
  const before = await spoofState(node.name);
  for (const p of [gone, kept, theirs]) t.ok(before.chains.includes(`cni-br-iface-${ref(p)}-mac`), `control: ${p.id} has its spoof-check chains`);

  const { cniVersion, name, ...plugin } = mine;
  await gc({ cniVersion, name, plugins: [plugin] }, [{ containerID: kept.id, ifname: 'eth0' }], { nodeNetns: node.name });

  const after = await spoofState(node.name);
  t.notOk(
    after.chains.some((c) => c.includes(ref(gone))),
    "the dead attachment's chains are gone",
  );
  t.notOk(after.jumps.includes(`macspoofchk-${ref(gone)}`), 'and its PREROUTING jump');
  for (const p of [kept, theirs]) {
    t.ok(after.chains.includes(`cni-br-iface-${ref(p)}`) && after.chains.includes(`cni-br-iface-${ref(p)}-mac`), `${p.id} keeps its chains`);
    t.ok(after.jumps.includes(`macspoofchk-${ref(p)}`), `${p.id} keeps its PREROUTING jump`);
  }
  t.ok(await pings(kept.ns.name, POD_V4.gateway), 'the valid pod still reaches its gateway');
  t.ok(await pings(theirs.ns.name, '10.246.0.1'), "the other network's pod still reaches its gateway");

  await delPod(DIST_BIN, node.name, mine, gone, results[0]);
  await delPod(DIST_BIN, node.name, mine, kept, results[1]);
  await delPod(DIST_BIN, node.name, other, theirs, results[2]);
});
