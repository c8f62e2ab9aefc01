// Interop with Debian's Go portmap v1.1.1 (iptables; it has no nftables backend): a node that
// swaps one implementation for the other must still clean up what the other one added, and
// our CHECK must accept the Go plugin's rules. The pod comes from our bridge + host-local; the
// two portmaps are run directly with that result as prevResult, same network and container id.
import t, { type Test } from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { addPod, bridgeConf, delPod, type BridgeResult } from '../helpers/bridge-net.ts';
import { DIST_BIN, execPlugin, GO_BIN } from '../helpers/plugins.ts';
import { iptablesPortmapOf, startNamedServer, tcpAnswer } from '../helpers/portmap.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { makePod, makeTopology, UPLINK } from '../helpers/topology.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'portmap')) ? false : `the Go reference portmap is not installed at ${GO_BIN}`);
const portMappings = [
  { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
  { hostPort: 8080, containerPort: 81, protocol: 'udp' },
];

type Verb = 'ADD' | 'DEL' | 'CHECK';

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const { node, remote, dataDir } = await makeTopology(t, { remote: true });
  const pod = await makePod(t);
  const id = `pm-interop-${process.pid}`;
  const bridge = bridgeConf({ dataDir, cniVersion: '0.4.0', bridgeFields: { isDefaultGateway: true, ipMasq: true, hairpinMode: true } });
  const prevResult: BridgeResult = await addPod(DIST_BIN, node.name, bridge, { ns: pod, id });
  const conf = { cniVersion: '0.4.0', name: 'podnet', type: 'portmap', runtimeConfig: { portMappings }, prevResult };
  const run = (dir: string, command: Verb) =>
    execPlugin('portmap', { command, containerId: id, netns: pod.path, ifname: 'eth0', nodeNetns: node.name }, conf, dir);
  const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');
  await startNamedServer(t, pod.name, 'pod', { tcp: 80, udp: 81 });

  t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 8080), '', 'control: no answer before ADD');
  const add = await run(adder, 'ADD');
  t.equal(add.code, 0, `${label(adder)} ADD succeeds ${add.stdout}`);
  t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 8080), 'pod', `the hostPort answers after ${label(adder)} ADD`);
  t.ok((await iptablesPortmapOf(node.name, 'podnet', id)).length > 0, `${label(adder)} left its rules`);
  if (adder === GO_BIN) {
    const check = await run(DIST_BIN, 'CHECK');
    t.equal(check.code, 0, `our CHECK accepts the Go plugin's rules ${check.stdout}`);
  }
  const del = await run(deleter, 'DEL');
  t.equal(del.code, 0, `${label(deleter)} DEL succeeds ${del.stdout}`);
  t.same(await iptablesPortmapOf(node.name, 'podnet', id), [], `${label(deleter)} DEL removed every rule of the container ${label(adder)} added`);
  t.equal(await tcpAnswer(remote!.name, UPLINK.nodeV4, 8080), '', 'the hostPort no longer answers');
  if (deleter === DIST_BIN) {
    const check = await run(DIST_BIN, 'CHECK');
    t.not(check.code, 0, 'our CHECK fails once the rules are gone');
  }
  await delPod(DIST_BIN, node.name, bridge, { ns: pod, id });
}

t.test('rules added by the Go portmap are removed by our DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('rules added by our portmap are removed by the Go DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));
