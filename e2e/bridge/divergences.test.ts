// Where our bridge deliberately differs from the Go reference (docs/divergences.md), against
// the built executables in throwaway netns:
//   - DEL with an empty CNI_NETNS still removes the pod's ipMasq rules (the reference leaks
//     them: https://github.com/containernetworking/plugins/issues/810), and repeats cleanly;
//   - CHECK without prevResult is a config error, code 7 (the reference: 999);
//   - CHECK finds a route in the table the result names (the reference looks in main only).
import t, { type Test } from 'tap';
import { addPod, addrs, bridgeConf, delPod, runBridge, type BridgeResult, type PodRef } from '../helpers/bridge-net.ts';
import { ipFiles, leftovers, masqRulesOf } from '../helpers/node-state.ts';
import { DIST_BIN, execPlugin } from '../helpers/plugins.ts';
import { needsRoot, run } from '../../test-support/sh.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

const dir = DIST_BIN;

/** DEL as a runtime sends it once the container's netns is gone: CNI_NETNS empty. */
function delWithoutNetns(node: string, conf: object, pod: PodRef, prevResult?: unknown) {
  const env = { command: 'DEL' as const, containerId: pod.id, netns: '', ifname: 'eth0', cniPath: [dir], nodeNetns: node };
  return execPlugin('bridge', env, prevResult === undefined ? conf : { ...conf, prevResult }, dir);
}

async function delWithoutNetnsCase(t: Test, backend: 'iptables' | 'nftables', withPrevResult: boolean): Promise<void> {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, bridgeFields: { isGateway: true, ipMasq: true, ipMasqBackend: backend } });
  const pod: PodRef = { ns: await makePod(t), id: `nonetns-${backend}` };
  const r: BridgeResult = await addPod(dir, node.name, conf, pod);
  const ips = addrs(r).all;
  t.ok((await masqRulesOf(node.name, pod.id, ips)).length > 0, `ADD installed ${backend} masquerade rules (the control)`);
  t.equal(ipFiles(dataDir, 'podnet').length, 1, 'ADD allocated one address');

  const del = await delWithoutNetns(node.name, conf, pod, withPrevResult ? r : undefined);
  t.equal(del.code, 0, `DEL with an empty CNI_NETNS succeeds: ${del.stdout.trim()}`);
  t.same(await masqRulesOf(node.name, pod.id, ips), [], 'the masquerade rules are gone (the reference leaves them)');
  t.same(ipFiles(dataDir, 'podnet'), [], 'the address is released');
  const again = await delWithoutNetns(node.name, conf, pod, withPrevResult ? r : undefined);
  t.equal(again.code, 0, `a second such DEL succeeds too: ${again.stdout.trim()}`);

  // The pod's netns still exists here, so its veth does: the runtime's DEL with it removes that.
  await delPod(dir, node.name, conf, pod, r);
  t.same(await leftovers({ node: node.name, pod: pod.ns.name, dataDir, network: 'podnet' }), {}, 'nothing left');
}

for (const backend of ['iptables', 'nftables'] as const) {
  for (const withPrevResult of [true, false]) {
    t.test(`DEL with an empty CNI_NETNS removes the ${backend} ipMasq rules (${withPrevResult ? 'with' : 'without'} prevResult)`, { skip: needsRoot }, (t) =>
      delWithoutNetnsCase(t, backend, withPrevResult),
    );
  }
}

t.test('CHECK without prevResult is code 7 (invalid network config)', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, bridgeFields: { isGateway: true } });
  const pod: PodRef = { ns: await makePod(t), id: 'check-noprev' };
  const r = await addPod(dir, node.name, conf, pod);
  const withPrev = await runBridge(dir, node.name, 'CHECK', { ...conf, prevResult: r }, pod);
  t.equal(withPrev.code, 0, `CHECK with prevResult passes (the control): ${withPrev.stdout.trim()}`);
  const without = await runBridge(dir, node.name, 'CHECK', conf, pod);
  t.equal(without.code, 1, 'CHECK without prevResult fails');
  t.same(without.json, { code: 7, msg: 'Required prevResult missing' }, 'code 7 with the reference message (the reference says 999)');
  await delPod(dir, node.name, conf, pod, r);
  t.same(await leftovers({ node: node.name, pod: pod.ns.name, dataDir, network: 'podnet' }), {}, 'nothing left');
});

t.test('CHECK looks for a route in the table the result names', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const route = { dst: '192.168.77.0/24', gw: '10.244.0.1', table: 100 };
  const conf = bridgeConf({ dataDir, cniVersion: '1.1.0', bridgeFields: { isGateway: true }, ipamFields: { routes: [route] } });
  const pod: PodRef = { ns: await makePod(t), id: 'check-table' };
  const r = await addPod(dir, node.name, conf, pod);
  t.same(r.routes, [route], 'the result carries the route with its table');
  const inTable = await run('ip', ['-n', pod.ns.name, '-4', 'route', 'show', 'table', '100']);
  t.match(inTable, /^192\.168\.77\.0\/24 via 10\.244\.0\.1 dev eth0/m, 'ADD put the route in table 100');
  const inMain = await run('ip', ['-n', pod.ns.name, '-4', 'route', 'show', 'table', 'main']);
  t.notMatch(inMain, /192\.168\.77\.0/, 'and not in main');

  const check = await runBridge(dir, node.name, 'CHECK', { ...conf, prevResult: r }, pod);
  t.equal(check.code, 0, `CHECK finds it in table 100 (the reference looks in main and fails): ${check.stdout.trim()}`);
  await run('ip', ['-n', pod.ns.name, 'route', 'del', '192.168.77.0/24', 'table', '100']);
  const gone = await runBridge(dir, node.name, 'CHECK', { ...conf, prevResult: r }, pod);
  t.equal(gone.code, 1, 'CHECK fails once the route is removed from table 100');
  t.match(gone.json?.msg, /Expected Route \{Dst:192\.168\.77\.0\/24 GW:10\.244\.0\.1\} not found/, `the reference's message: ${gone.stdout.trim()}`);

  await delPod(dir, node.name, conf, pod, r);
  t.same(await leftovers({ node: node.name, pod: pod.ns.name, dataDir, network: 'podnet' }), {}, 'nothing left');
});
