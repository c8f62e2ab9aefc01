// nftables: two attachments with the same address (the first one's DEL never came, and its
// address went to a new pod). The set element must follow the newest attachment: a later DEL
// or GC of the old one must not take the new pod's accept away. Pod B is real (bridge, traffic
// to the remote through the node's denied FORWARD); pod A is an attachment whose prevResult
// names B's address. B's ADD is run both ways ADD writes elements: over nfnetlink (the skeleton
// is in place) and through the full `nft -f` script (`forward` holds a rule not ours).
import t, { type Test } from 'tap';
import { addPod, addrs, bridgeConf, type BridgeResult } from '../helpers/bridge-net.ts';
import { denyForwarding, fwAdd, fwConf, runFirewall, type FwRun } from '../helpers/firewall.ts';
import { DIST_BIN } from '../helpers/plugins.ts';
import { needsRoot, nsRun } from '../../test-support/sh.ts';
import { makePod, makeTopology, pings, UPLINK } from '../helpers/topology.ts';

const skip = needsRoot;
type Path = 'nfnetlink' | 'script';
type Ending = 'DEL' | 'GC';

async function sharedAddr(t: Test, path: Path, ending: Ending): Promise<void> {
  const { node, dataDir } = await makeTopology(t, { remote: true });
  const bridge = bridgeConf({ dataDir, cniVersion: '1.1.0', bridgeFields: { isDefaultGateway: true, ipMasq: true, ipMasqBackend: 'nftables' } });
  const [a, b] = [await makePod(t), await makePod(t)];
  const prevB: BridgeResult = await addPod(DIST_BIN, node.name, bridge, { ns: b, id: 'shared-b' });
  const prevA: BridgeResult = { ...prevB, interfaces: [{ name: 'cni0' }, { name: 'vethgone' }, { name: 'eth0', sandbox: a.path }] };
  const ip = addrs(prevB).v4!;
  await denyForwarding(node.name, 'nftables');
  const conf = fwConf('nftables', { cniVersion: '1.1.0' });
  const ra: FwRun = { node: node.name, id: 'shared-a', netns: a.path, conf };
  const rb: FwRun = { node: node.name, id: 'shared-b', netns: b.path, conf };

  t.notOk(await pings(b.name, UPLINK.remoteV4), 'control: with forwarding denied, pod B does not reach beyond the node');
  await fwAdd(t, ra, prevA);
  if (path === 'script') await nsRun(node.name, 'nft', ['add rule inet cni_firewall forward counter']);
  await fwAdd(t, rb, prevB);
  const elems = await nsRun(node.name, 'nft', ['list', 'set', 'inet', 'cni_firewall', 'pods4']);
  t.equal(elems.split(ip).length - 1, 1, `one element names ${ip}`);
  t.equal((await runFirewall(DIST_BIN, 'CHECK', rb, prevB)).code, 0, 'CHECK of pod B passes after its ADD');

  if (ending === 'DEL') {
    const del = await runFirewall(DIST_BIN, 'DEL', ra, prevA);
    t.equal(del.code, 0, `DEL of pod A succeeds ${del.stdout}`);
  } else {
    const gc = await runFirewall(DIST_BIN, 'GC', { ...rb, conf: { ...conf, 'cni.dev/valid-attachments': [{ containerID: 'shared-b', ifname: 'eth0' }] } });
    t.equal(gc.code, 0, `GC with only pod B valid succeeds ${gc.stdout}`);
  }
  const check = await runFirewall(DIST_BIN, 'CHECK', rb, prevB);
  t.equal(check.code, 0, `after ${ending} of pod A, CHECK of pod B passes ${check.stdout}`);
  t.ok(await pings(b.name, UPLINK.remoteV4), `after ${ending} of pod A, pod B still reaches the remote through FORWARD`);

  t.equal((await runFirewall(DIST_BIN, 'DEL', rb, prevB)).code, 0, 'DEL of pod B succeeds');
  t.notMatch(await nsRun(node.name, 'nft', ['list', 'set', 'inet', 'cni_firewall', 'pods4']), ip, 'and takes the element away');
  t.notOk(await pings(b.name, UPLINK.remoteV4), 'pod B is cut off again');
}

for (const path of ['nfnetlink', 'script'] as const) {
  for (const ending of ['DEL', 'GC'] as const) {
    t.test(`nftables, ADD of B by ${path}: ${ending} of an older attachment with B's address leaves B's accept`, { skip }, (t) => sharedAddr(t, path, ending));
  }
}
