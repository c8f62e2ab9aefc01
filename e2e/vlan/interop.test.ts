// Interop with Debian's Go vlan v1.1.1: the link and the allocation one implementation's ADD made,
// the other's DEL removes; Go → Go is the positive control. Our CHECK accepts the Go ADD, and both
// ADDs give the same result once the MACs and netns paths (new ones each time) and Go 1.1.1's
// empty "dns" are set aside. Needs 802.1Q in the kernel: else the kernel lab runs this file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { impl } from '../helpers/impl.ts';
import { ipFiles, link, podLinks } from '../helpers/node-state.ts';
import { DIST_BIN, GO_BIN } from '../helpers/plugins.ts';
import { withCachedResult } from '../helpers/ptp.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';
import { makeSwitch, VLAN_ID, VLAN_NETWORK, VLAN_V4, vlanAttachment, vlanConflist, vlanPlugin } from '../helpers/vlan.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'vlan')) ? false : `the Go reference vlan is not installed at ${GO_BIN}`) || impl.lacks('kernel-vlan');
const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');

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
  await makeSwitch(t, node);
  const pod = await makePod(t);
  const list = vlanConflist('1.0.0', vlanPlugin(dataDir, { mtu: 1400 }));
  const id = 'vlan-interop';
  const r = await vlanAttachment(list, { node, pod, id, cniPath: [adder] }).add();
  const eth0 = await link(pod.name, 'eth0');
  t.same([eth0?.linkinfo?.info_kind, eth0?.linkinfo?.info_data?.['id'], eth0?.mtu], ['vlan', VLAN_ID, 1400], `${label(adder)} ADD made the vlan`);
  t.ok(await pings(pod.name, VLAN_V4.gateway), `pod → gateway after ${label(adder)} ADD`);
  const where = { node, pod, id, cniPath: [deleter] };
  if (adder === GO_BIN) await t.resolves(withCachedResult(list, { ...where, cniPath: [DIST_BIN] }, r).check(), 'our CHECK accepts the Go ADD');
  await withCachedResult(list, where, r).del();
  t.same(await podLinks(pod.name), [], `${label(deleter)} DEL left no link in the pod`);
  t.same(ipFiles(dataDir, VLAN_NETWORK), [], `${label(deleter)} DEL released the address`);
  return normalised(r);
}

t.test('control: Go ADD → Go DEL', { skip }, (t) => handOver(t, GO_BIN, GO_BIN));
t.test('Go ADD → our DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('our ADD → Go DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));
t.test('the same result from both ADDs', { skip }, async (t) => {
  const go = await handOver(t, GO_BIN, GO_BIN);
  const ours = await handOver(t, DIST_BIN, DIST_BIN);
  t.same(ours, go);
  t.match(ours, { interfaces: [{ name: 'eth0', mac: 'MAC' }], ips: [{ address: `${VLAN_V4.first}/24` }] }, 'control: the results say something');
});
