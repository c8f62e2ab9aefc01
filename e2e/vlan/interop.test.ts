// Interop with Debian's Go vlan v1.1.1: the link and the allocation one implementation's ADD made,
// the other's DEL removes; Go → Go is the positive control. Our CHECK accepts the Go ADD, and both
// ADDs give the same result once the MACs and netns paths (new ones each time) and Go 1.1.1's
// empty "dns" are set aside. Needs 802.1Q in the kernel: else the kernel lab runs this file.
import t, { type Test } from 'tap';
import { impl } from '../helpers/impl.ts';
import { bothResults, conflistHandOver, goReferenceMissing, handOverTests, implLabel, normalisedResult } from '../helpers/interop.ts';
import { ipFiles, link, podLinks } from '../helpers/node-state.ts';
import { GO_BIN } from '../helpers/plugins.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';
import { makeSwitch, VLAN_ID, VLAN_NETWORK, VLAN_V4, vlanConflist, vlanPlugin } from '../helpers/vlan.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot || goReferenceMissing('vlan') || impl.lacks('kernel-vlan');

async function handOver(t: Test, adder: string, deleter: string): Promise<Record<string, unknown>> {
  const { node, dataDir } = await makeTopology(t);
  await makeSwitch(t, node);
  const pod = await makePod(t);
  const h = conflistHandOver(vlanConflist('1.0.0', vlanPlugin(dataDir, { mtu: 1400 })), { node, pod, id: 'vlan-interop', adder, deleter });
  const r = await h.add();
  const eth0 = await link(pod.name, 'eth0');
  t.same([eth0?.linkinfo?.info_kind, eth0?.linkinfo?.info_data?.['id'], eth0?.mtu], ['vlan', VLAN_ID, 1400], `${implLabel(adder)} ADD made the vlan`);
  t.ok(await pings(pod.name, VLAN_V4.gateway), `pod → gateway after ${implLabel(adder)} ADD`);
  if (adder === GO_BIN) await t.resolves(h.ourCheck(), 'our CHECK accepts the Go ADD');
  await h.del();
  t.same(await podLinks(pod.name), [], `${implLabel(deleter)} DEL left no link in the pod`);
  t.same(ipFiles(dataDir, VLAN_NETWORK), [], `${implLabel(deleter)} DEL released the address`);
  return normalisedResult(r);
}

handOverTests(skip, handOver);
t.test('the same result from both ADDs', { skip }, async (t) => {
  const { go, ours } = await bothResults(t, handOver);
  t.same(ours, go);
  t.match(ours, { interfaces: [{ name: 'eth0', mac: 'MAC' }], ips: [{ address: `${VLAN_V4.first}/24` }] }, 'control: the results say something');
});
