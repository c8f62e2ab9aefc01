// Interop with Debian's Go host-device v1.1.1: what one implementation's ADD moved (the device,
// its alias naming it, an address from host-local), the other's DEL brings back and releases;
// Go → Go is the positive control. Our CHECK accepts the Go ADD, and both ADDs give the same
// result once the MACs and netns paths (new ones each time) and Go 1.1.1's empty "dns" are set aside.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { HD_DEVICE, HD_NETWORK, HD_V4, hdAttachment, hdConflist, hdPlugin, makeDevice } from '../helpers/host-device.ts';
import { ipFiles, link, podLinks } from '../helpers/node-state.ts';
import { DIST_BIN, GO_BIN } from '../helpers/plugins.ts';
import { withCachedResult } from '../helpers/ptp.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'host-device')) ? false : `the Go reference host-device is not installed at ${GO_BIN}`);
const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');

/** The result with its MACs and netns path replaced and an empty dns dropped (libcni 1.1.1 prints "dns": {}; v1.9.1 does not). */
function normalised(r: Record<string, unknown>): Record<string, unknown> {
  const { dns, ...rest } = r;
  const out: Record<string, unknown> = JSON.parse(
    JSON.stringify(rest)
      .replace(/"mac":"[0-9a-f:]{17}"/g, '"mac":"MAC"')
      .replace(/"sandbox":"[^"]*"/g, '"sandbox":"POD"'),
  );
  if (dns && Object.keys(dns).length > 0) out['dns'] = dns;
  return out;
}

async function handOver(t: Test, adder: string, deleter: string): Promise<Record<string, unknown>> {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  const mac = await makeDevice(node);
  const list = hdConflist('1.0.0', hdPlugin(dataDir));
  const id = 'hd-interop';
  const r = await hdAttachment(list, { node, pod, id, cniPath: [adder] }).add();
  const inPod = await link(pod.name, 'eth0');
  t.equal(inPod?.address, mac, `${label(adder)} ADD moved the device in as eth0`);
  t.equal((inPod as { ifalias?: string } | undefined)?.ifalias, HD_DEVICE, `${label(adder)} ADD keeps its node name as its alias`);
  t.ok(await pings(pod.name, HD_V4.gateway), `pod → node after ${label(adder)} ADD`);
  const where = { node, pod, id, cniPath: [deleter] };
  if (adder === GO_BIN) await t.resolves(withCachedResult(list, { ...where, cniPath: [DIST_BIN] }, r).check(), 'our CHECK accepts the Go ADD');
  await withCachedResult(list, where, r).del();
  const back = await link(node.name, HD_DEVICE);
  t.equal(back?.address, mac, `${label(deleter)} DEL brought it back under its name`);
  // Go 1.1.1 never clears the alias it set (v1.9.1 does, as we do).
  if (deleter !== GO_BIN) t.equal((back as { ifalias?: string } | undefined)?.ifalias, undefined, 'our DEL clears the alias');
  t.same(await podLinks(pod.name), [], 'nothing left in the pod');
  t.same(ipFiles(dataDir, HD_NETWORK), [], `${label(deleter)} DEL released the address`);
  return normalised(r);
}

t.test('control: Go ADD → Go DEL', { skip }, (t) => handOver(t, GO_BIN, GO_BIN));
t.test('Go ADD → our DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('our ADD → Go DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));
t.test('the same result from both ADDs', { skip }, async (t) => {
  const go = await handOver(t, GO_BIN, GO_BIN);
  const ours = await handOver(t, DIST_BIN, DIST_BIN);
  t.same(ours, go);
  t.match(ours, { interfaces: [{ name: 'eth0', mac: 'MAC' }], ips: [{ address: `${HD_V4.first}/24` }] }, 'control: the results say something');
});
