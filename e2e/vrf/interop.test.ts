// Interop with Debian's Go vrf v1.1.1: the VRF one implementation's ADD made and the interface it
// enslaved, the other's CHECK accepts and its DEL releases and removes, leaving nothing. (Go 1.1.1
// leaves the interface's routes where enslaving put them; moving them into the VRF's table came
// with the reference's v1.2.0, so routes are not compared.) Needs vrf links: else the kernel lab.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { impl } from '../helpers/impl.ts';
import { makeNetns } from '../helpers/netns.ts';
import { DIST_BIN, GO_BIN } from '../helpers/plugins.ts';
import { callVrf, podLinks, vrfConf, wire } from '../helpers/vrf.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'vrf')) ? false : `the Go reference vrf is not installed at ${GO_BIN}`) || impl.lacks('kernel-vrf');
const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const pod = await makeNetns(t, 'cnits-vrf');
  await wire(t, pod, 'eth1', { metric: 100, far: '10.90.0.1' });
  const conf = vrfConf('red', { cniVersion: '1.0.0', pod, ifname: 'eth1' });
  const add = await callVrf('ADD', { netns: pod.path, ifname: 'eth1', binDir: adder }, conf);
  t.equal(add.code, 0, `${label(adder)} ADD ${add.stdout}${add.stderr}`);
  t.same(await podLinks(pod.name), { eth1: { kind: 'veth', master: 'red' }, red: { kind: 'vrf', table: 1 } }, `${label(adder)} ADD: red, table 1, eth1 in it`);
  t.equal((await callVrf('CHECK', { netns: pod.path, ifname: 'eth1', binDir: deleter }, conf)).code, 0, `${label(deleter)} CHECK accepts it`);
  t.equal((await callVrf('DEL', { netns: pod.path, ifname: 'eth1', binDir: deleter }, conf)).code, 0, `${label(deleter)} DEL`);
  t.same(await podLinks(pod.name), { eth1: { kind: 'veth' } }, `${label(deleter)} DEL left no VRF, eth1 released`);
}

t.test('Go ADD → our CHECK and DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('our ADD → Go CHECK and DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));
