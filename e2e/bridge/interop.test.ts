// Interop with Debian's Go reference plugins (/usr/lib/cni): a node upgraded from theirs to
// ours (or back) must clean up pods the other one added. ADD with one implementation
// (its bridge + its host-local), DEL with the other, same config, same dataDir.
// Judges the implementation CNI_E2E_FORM names (ours by default, go for the reference: then go against go; see e2e/helpers/impl.ts).
import t, { type Test } from 'tap';
import { addPod, addrs, bridgeConf, delPod, POD_V6, type BridgeResult, type PodRef } from '../helpers/bridge-net.ts';
import { goReference, impl, type Impl } from '../helpers/impl.ts';
import { ipFiles, leftovers, masqRulesOf, podLinks, spoofRules } from '../helpers/node-state.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

const go = await goReference();
const skip = impl.lacks() || go.lacks('macspoofchk');

async function handOver(t: Test, adder: Impl, deleter: Impl): Promise<void> {
  const { node, dataDir } = await makeTopology(t);
  // iptables is the only ipMasq backend of Go v1.1.1 and the reference's automatic choice
  const conf = bridgeConf({ dataDir, v6: { subnet: POD_V6.subnet }, bridgeFields: { isGateway: true, ipMasq: true, macspoofchk: true } });
  const pods: PodRef[] = [
    { ns: await makePod(t), id: 'handover-cached' },
    { ns: await makePod(t), id: 'handover-nocache' },
  ];
  const results = await Promise.all(pods.map((p) => addPod(adder.dir, node.name, conf, p)));
  t.equal(ipFiles(dataDir, 'podnet').length, 4, `${adder.label} allocated an IPv4 and an IPv6 address per pod`);
  for (const [i, p] of pods.entries()) {
    t.ok((await masqRulesOf(node.name, p.id, addrs(results[i] as BridgeResult).all)).length > 0, `${adder.label} installed masquerade rules for ${p.id}`);
  }
  t.ok((await spoofRules(node.name)).length > 0, `${adder.label} installed spoofcheck rules`);

  // one DEL with the runtime's cached result, one without (a runtime that lost its cache)
  for (const [i, p] of pods.entries()) {
    const r = results[i] as BridgeResult;
    await delPod(deleter.dir, node.name, conf, p, i === 0 ? r : undefined);
    const left = {
      'links in pod': await podLinks(p.ns.name),
      'IP files': ipFiles(dataDir, 'podnet').filter((f) => addrs(r).all.includes(f)),
      'masquerade rules': await masqRulesOf(node.name, p.id, addrs(r).all),
      'spoofcheck rules': (await spoofRules(node.name)).filter((l) => l.includes(p.id)),
    };
    t.same(
      Object.fromEntries(Object.entries(left).filter(([, v]) => v.length > 0)),
      {},
      `${deleter.label} DEL (${i === 0 ? 'with' : 'without'} prevResult) left nothing of ${p.id}`,
    );
  }
  t.same(await leftovers({ node: node.name, dataDir, network: 'podnet' }), {}, 'the node is clean: no veth, IP file, CNI- chain or jump, spoofcheck chain');
}

t.test(`a pod added by go is fully removed by ${impl.label} DEL`, { skip }, (t) => handOver(t, go, impl));
t.test(`a pod added by ${impl.label} is fully removed by go DEL`, { skip }, (t) => handOver(t, impl, go));
