// Interop with Debian's Go tuning v1.1.1: the attributes one implementation's ADD saved are
// restored by the other's DEL (same file, same JSON), with Go → Go as the positive control.
// And the two places where our CHECK differs on purpose, with the Go plugin as the oracle.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { DIST_BIN, execPlugin, GO_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { link, podWithEth0, sysctl, tuningConf } from '../helpers/tuning.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'tuning')) ? false : `the Go reference tuning is not installed at ${GO_BIN}`);
// txQLen is not in v1.1.1.
const TUNE = { mac: '02:11:22:33:44:55', mtu: 1400, promisc: true, allmulti: true, sysctl: { 'net.core.somaxconn': '512' } };
const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const pod = await podWithEth0(t);
  const dataDir = tempDir(t);
  const before = await link(pod.name);
  const conf = tuningConf('1.0.0', dataDir, TUNE, pod);
  const call = (dir: string, command: 'ADD' | 'DEL') =>
    execPlugin('tuning', { command, containerId: 'tun-interop', netns: pod.path, ifname: 'eth0' }, conf, dir);
  const add = await call(adder, 'ADD');
  t.equal(add.code, 0, `${label(adder)} ADD ${add.stdout}`);
  t.match(await link(pod.name), { address: '02:11:22:33:44:55', mtu: 1400 }, `${label(adder)} ADD tuned the link`);
  t.ok(existsSync(join(dataDir, 'tun-interop_eth0.json')), `${label(adder)} ADD saved the old values`);
  t.equal((await call(deleter, 'DEL')).code, 0, `${label(deleter)} DEL`);
  const after = await link(pod.name);
  t.match(after, { address: before.address, mtu: before.mtu, promiscuity: 0 }, `${label(deleter)} DEL restored MAC, MTU, promiscuous mode`);
  t.notOk(after.flags.includes('ALLMULTI'), 'and all-multicast');
  t.notOk(existsSync(join(dataDir, 'tun-interop_eth0.json')), `${label(deleter)} DEL removed the saved copy`);
}

t.test('control: Go ADD → Go DEL', { skip }, (t) => handOver(t, GO_BIN, GO_BIN));
t.test('Go ADD → our DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('our ADD → Go DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));

t.test('CHECK: an IFNAME sysctl and a MAC written in another form pass ours; the Go plugin fails them', { skip }, async (t) => {
  for (const extra of [{ sysctl: { 'net.ipv4.conf.IFNAME.arp_filter': '1' } }, { mac: '02-AA-BB-CC-DD-EE' }]) {
    const pod = await podWithEth0(t);
    const conf = tuningConf('1.0.0', tempDir(t), extra, pod);
    const call = (dir: string, command: 'ADD' | 'DEL' | 'CHECK') =>
      execPlugin('tuning', { command, containerId: 'tun-check', netns: pod.path, ifname: 'eth0' }, conf, dir);
    t.equal((await call(DIST_BIN, 'ADD')).code, 0, 'ADD');
    if ('sysctl' in extra) t.equal(await sysctl(pod.name, 'net.ipv4.conf.eth0.arp_filter'), '1');
    const ours = await call(DIST_BIN, 'CHECK');
    t.equal(ours.code, 0, `our CHECK passes ${JSON.stringify(extra)} ${ours.stdout}`);
    const go = await call(GO_BIN, 'CHECK');
    t.not(go.code, 0, `the Go CHECK fails ${go.stdout}`);
    t.equal((await call(DIST_BIN, 'DEL')).code, 0, 'DEL');
  }
});
