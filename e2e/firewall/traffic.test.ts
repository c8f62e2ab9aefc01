// The firewall plugin's job, seen in traffic, for both our backends: with the node's forwarding
// denied, a pod reaches beyond the node only after firewall ADD (a pod without it, beside it,
// stays cut off), CHECK passes, DEL takes its rules away again and nothing of the pod is left.
// With ingressPolicy same-bridge, pods on one bridge reach each other but not the pods of
// another same-bridge network, and did before (positive control).
import t, { type Test } from 'tap';
import { addPod, addrs, bridgeConf, type BridgeResult } from '../helpers/bridge-net.ts';
import { denyForwarding, firewallStateOf, fwAdd, fwConf, FW_BACKENDS, runFirewall, type FwBackend, type FwRun } from '../helpers/firewall.ts';
import { DIST_BIN } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { makePod, makeTopology, pings, UPLINK } from '../helpers/topology.ts';

const skip = needsRoot;

async function openPolicy(t: Test, backend: FwBackend): Promise<void> {
  const { node, dataDir } = await makeTopology(t, { remote: true });
  const bridge = bridgeConf({ dataDir, cniVersion: '0.4.0', bridgeFields: { isDefaultGateway: true, ipMasq: true, ipMasqBackend: backend } });
  const [a, b] = [await makePod(t), await makePod(t)];
  const prevA: BridgeResult = await addPod(DIST_BIN, node.name, bridge, { ns: a, id: 'fw-a' });
  await addPod(DIST_BIN, node.name, bridge, { ns: b, id: 'fw-b' });
  const ipA = addrs(prevA).v4!;
  await denyForwarding(node.name, backend);
  const r: FwRun = { node: node.name, id: 'fw-a', netns: a.path, conf: fwConf(backend) };

  t.notOk(await pings(a.name, UPLINK.remoteV4), 'control: with forwarding denied, pod A does not reach beyond the node');
  await fwAdd(t, r, prevA);
  t.ok(await pings(a.name, UPLINK.remoteV4), 'after firewall ADD, pod A reaches the remote through FORWARD (out, and the reply back)');
  t.notOk(await pings(b.name, UPLINK.remoteV4), 'pod B, without firewall ADD, still does not');
  t.equal((await runFirewall(DIST_BIN, 'CHECK', r, prevA)).code, 0, 'CHECK passes');
  t.ok((await firewallStateOf(node.name, [ipA])).length > 0, 'the rules name pod A');

  const del = await runFirewall(DIST_BIN, 'DEL', r, prevA);
  t.equal(del.code, 0, `DEL succeeds ${del.stdout}`);
  t.same(await firewallStateOf(node.name, [ipA]), [], 'nothing of pod A is left');
  t.notOk(await pings(a.name, UPLINK.remoteV4), 'after DEL pod A is cut off again');
  t.not((await runFirewall(DIST_BIN, 'CHECK', r, prevA)).code, 0, 'CHECK fails once the rules are gone');
  t.equal((await runFirewall(DIST_BIN, 'DEL', r, prevA)).code, 0, 'DEL again succeeds');
  t.equal((await runFirewall(DIST_BIN, 'DEL', r)).code, 0, 'DEL without prevResult succeeds');
}

async function sameBridge(t: Test, backend: FwBackend): Promise<void> {
  const { node, dataDir } = await makeTopology(t);
  const net = (name: string, br: string, subnet: string) =>
    bridgeConf({ dataDir, name, cniVersion: '0.4.0', bridge: br, v4: { subnet }, bridgeFields: { isDefaultGateway: true } });
  const netA = net('neta', 'cni0', '10.244.0.0/24');
  const netB = net('netb', 'cni1', '10.245.0.0/24');
  const [a1, a2, b1] = [await makePod(t), await makePod(t), await makePod(t)];
  const pa1 = await addPod(DIST_BIN, node.name, netA, { ns: a1, id: 'a1' });
  const pa2 = await addPod(DIST_BIN, node.name, netA, { ns: a2, id: 'a2' });
  const pb1 = await addPod(DIST_BIN, node.name, netB, { ns: b1, id: 'b1' });
  const [ipA1, ipA2, ipB1] = [pa1, pa2, pb1].map((p) => addrs(p).v4!);

  t.ok(await pings(a1.name, ipB1!), 'control: before the firewall, bridge A reaches bridge B');
  const conf = (name: string) => ({ ...fwConf(backend, { ingressPolicy: 'same-bridge' }), name });
  const runs: [FwRun, BridgeResult][] = [
    [{ node: node.name, id: 'a1', netns: a1.path, conf: conf('neta') }, pa1],
    [{ node: node.name, id: 'a2', netns: a2.path, conf: conf('neta') }, pa2],
    [{ node: node.name, id: 'b1', netns: b1.path, conf: conf('netb') }, pb1],
  ];
  for (const [r, prev] of runs) await fwAdd(t, r, prev);

  t.ok(await pings(a1.name, ipA2!), 'same bridge: a1 reaches a2');
  t.ok(await pings(a1.name, '10.244.0.1'), 'a1 reaches its gateway on the node');
  t.notOk(await pings(a1.name, ipB1!), 'other bridge: a1 does not reach b1');
  t.notOk(await pings(b1.name, ipA1!), 'other bridge: b1 does not reach a1');
  for (const [r, prev] of runs) t.equal((await runFirewall(DIST_BIN, 'CHECK', r, prev)).code, 0, `CHECK ${r.id} passes`);

  for (const [r, prev] of runs) t.equal((await runFirewall(DIST_BIN, 'DEL', r, prev)).code, 0, `DEL ${r.id} succeeds`);
  t.same(await firewallStateOf(node.name, [ipA1!, ipA2!, ipB1!]), [], 'no rule of any pod is left');
}

for (const backend of FW_BACKENDS) {
  t.test(`${backend}: ingressPolicy open, node forwarding denied: only a pod with firewall ADD gets through`, { skip }, (t) => openPolicy(t, backend));
  t.test(`${backend}: ingressPolicy same-bridge: pods of two bridges are kept apart, one bridge's pods are not`, { skip }, (t) => sameBridge(t, backend));
}
