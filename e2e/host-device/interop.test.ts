// Interop with Debian's Go host-device v1.1.1: what one implementation's ADD moved (the device,
// its alias naming it, an address from host-local), the other's DEL brings back and releases;
// Go → Go is the positive control. Our CHECK accepts the Go ADD, and both ADDs give the same
// result once the MACs and netns paths (new ones each time) and Go 1.1.1's empty "dns" are set aside.
import t, { type Test } from 'tap';
import { HD_DEVICE, HD_NETWORK, HD_V4, hdConflist, hdPlugin, makeDevice } from '../helpers/host-device.ts';
import { bothResults, conflistHandOver, goReferenceMissing, handOverTests, implLabel, normalisedResult } from '../helpers/interop.ts';
import { ipFiles, link, podLinks } from '../helpers/node-state.ts';
import { GO_BIN } from '../helpers/plugins.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot || goReferenceMissing('host-device');

async function handOver(t: Test, adder: string, deleter: string): Promise<Record<string, unknown>> {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  const mac = await makeDevice(node);
  const h = conflistHandOver(hdConflist('1.0.0', hdPlugin(dataDir)), { node, pod, id: 'hd-interop', adder, deleter });
  const r = await h.add();
  const inPod = await link(pod.name, 'eth0');
  t.equal(inPod?.address, mac, `${implLabel(adder)} ADD moved the device in as eth0`);
  t.equal((inPod as { ifalias?: string } | undefined)?.ifalias, HD_DEVICE, `${implLabel(adder)} ADD keeps its node name as its alias`);
  t.ok(await pings(pod.name, HD_V4.gateway), `pod → node after ${implLabel(adder)} ADD`);
  if (adder === GO_BIN) await t.resolves(h.ourCheck(), 'our CHECK accepts the Go ADD');
  await h.del();
  const back = await link(node.name, HD_DEVICE);
  t.equal(back?.address, mac, `${implLabel(deleter)} DEL brought it back under its name`);
  // Go 1.1.1 never clears the alias it set (v1.9.1 does, as we do).
  if (deleter !== GO_BIN) t.equal((back as { ifalias?: string } | undefined)?.ifalias, undefined, 'our DEL clears the alias');
  t.same(await podLinks(pod.name), [], 'nothing left in the pod');
  t.same(ipFiles(dataDir, HD_NETWORK), [], `${implLabel(deleter)} DEL released the address`);
  return normalisedResult(r);
}

handOverTests(skip, handOver);
t.test('the same result from both ADDs', { skip }, async (t) => {
  const { go, ours } = await bothResults(t, handOver);
  t.same(ours, go);
  t.match(ours, { interfaces: [{ name: 'eth0', mac: 'MAC' }], ips: [{ address: `${HD_V4.first}/24` }] }, 'control: the results say something');
});
