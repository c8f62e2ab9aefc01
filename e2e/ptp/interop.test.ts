// Interop with Debian's Go ptp v1.1.1 (iptables masquerade): what one implementation's ADD made
// (veth, gateway address, host routes, allocation, masquerade chain), the other's DEL removes;
// Go → Go is the positive control. Our CHECK accepts the Go plugin's ADD.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { leftovers, masqRulesOf, nodeVeths } from '../helpers/node-state.ts';
import { DIST_BIN, GO_BIN } from '../helpers/plugins.ts';
import { PTP_NETWORK, ptpAttachment, ptpConflist, ptpPlugin, withCachedResult } from '../helpers/ptp.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { makePod, makeTopology, pings } from '../helpers/topology.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'ptp')) ? false : `the Go reference ptp is not installed at ${GO_BIN}`);
const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const { node, dataDir } = await makeTopology(t);
  const pod = await makePod(t);
  const list = ptpConflist('1.0.0', ptpPlugin(dataDir, { ipMasqBackend: 'iptables' }));
  const id = 'ptp-interop';
  const adding = ptpAttachment(list, { node, pod, id, cniPath: [adder] });
  const r = await adding.add();
  const ips = (r.ips as { address: string }[]).map((i) => i.address);
  t.equal((await nodeVeths(node.name)).length, 1, `${label(adder)} ADD made the host veth`);
  t.ok(await pings(node.name, ips[0]?.split('/')[0] as string), `node → pod after ${label(adder)} ADD`);
  t.not((await masqRulesOf(node.name, id, ips)).length, 0, `${label(adder)} ADD masquerades`);
  if (adder === GO_BIN) await t.resolves(withCachedResult(list, { node, pod, id, cniPath: [DIST_BIN] }, r).check(), 'our CHECK accepts the Go ADD');
  await withCachedResult(list, { node, pod, id, cniPath: [deleter] }, r).del();
  t.same(await leftovers({ node: node.name, pod: pod.name, dataDir, network: PTP_NETWORK }), {}, `${label(deleter)} DEL left nothing`);
}

t.test('control: Go ADD → Go DEL', { skip }, (t) => handOver(t, GO_BIN, GO_BIN));
t.test('Go ADD → our DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('our ADD → Go DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));
