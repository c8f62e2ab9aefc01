// Interop with Debian's Go firewall v1.1.1 (iptables; it has no nftables backend): a node that
// swaps one implementation for the other must still clean up what the other one added, and
// each CHECK must accept the other's rules. Dual-stack pod, ingressPolicy same-bridge, so the
// whole layout is compared: CNI-FORWARD, CNI-ADMIN and the isolation chains, in both families.
import t, { type Test } from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addPod, addrs, bridgeConf, POD_V6 } from '../helpers/bridge-net.ts';
import { firewallStateOf, fwConf, runFirewall, type FwRun } from '../helpers/firewall.ts';
import { DIST_BIN, GO_BIN } from '../helpers/plugins.ts';
import { needsRoot, nsRun } from '../../test-support/sh.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'firewall')) ? false : `the Go reference firewall is not installed at ${GO_BIN}`);
const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');
/** The filter tables without the comment lines (they carry a time stamp). */
const filterTables = async (node: string) =>
  (await Promise.all(['iptables-save', 'ip6tables-save'].map((s) => nsRun(node, s, ['-t', 'filter'])))).join('').replace(/^#.*\n/gm, '');

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  const id = `fw-interop-${process.pid}`;
  const bridge = bridgeConf({ dataDir, cniVersion: '0.4.0', v6: { subnet: POD_V6.subnet }, bridgeFields: { isDefaultGateway: true } });
  const prev = await addPod(DIST_BIN, node.name, bridge, { ns: pod, id });
  const ips = addrs(prev).all;
  t.equal(ips.length, 2, 'the pod is dual-stack');
  const r: FwRun = { node: node.name, id, netns: pod.path, conf: fwConf('iptables', { ingressPolicy: 'same-bridge' }) };

  const add = await runFirewall(adder, 'ADD', r, prev);
  t.equal(add.code, 0, `${label(adder)} ADD succeeds ${add.stdout}`);
  t.equal((await firewallStateOf(node.name, ips)).length, 4, `${label(adder)} ADD wrote two rules per address`);
  const other = adder === GO_BIN ? DIST_BIN : GO_BIN;
  const check = await runFirewall(other, 'CHECK', r, prev);
  t.equal(check.code, 0, `${label(other)} CHECK accepts the rules ${label(adder)} wrote ${check.stdout}`);
  const before = await filterTables(node.name);
  t.equal((await runFirewall(other, 'ADD', r, prev)).code, 0, `${label(other)} ADD over them succeeds`);
  t.equal(await filterTables(node.name), before, `and finds nothing to add: the layouts are the same`);

  const del = await runFirewall(deleter, 'DEL', r, prev);
  t.equal(del.code, 0, `${label(deleter)} DEL succeeds ${del.stdout}`);
  t.same(await firewallStateOf(node.name, ips), [], `${label(deleter)} DEL removed every rule of the pod`);
}

t.test('rules added by the Go firewall are checked and removed by ours', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('rules added by our firewall are checked and removed by the Go plugin', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));
