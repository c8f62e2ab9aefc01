// Interop with Debian's Go sbr v1.1.1: the rule and table one implementation's ADD made are
// found and removed by the other's DEL (the addresses of net1 name the rules), with Go → Go as
// the positive control. What Go's DEL leaves in the table leaves with net1 (its attachment's DEL).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { DIST_BIN, execPlugin, GO_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot, run } from '../../test-support/sh.ts';
import { extraRules, farPeerReaches, NET1, routesOutsideMain, sbrConf, sbrWorld } from '../helpers/sbr.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'sbr')) ? false : `the Go reference sbr is not installed at ${GO_BIN}`);
const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const w = await sbrWorld(t);
  const conf = sbrConf('1.0.0', w.pod);
  const call = (dir: string, command: 'ADD' | 'DEL') =>
    execPlugin('sbr', { command, containerId: 'sbr-interop', netns: w.pod.path, ifname: 'net1' }, conf, dir);
  const add = await call(adder, 'ADD');
  t.equal(add.code, 0, `${label(adder)} ADD ${add.stdout}`);
  t.match(await extraRules(w.pod.name), [{ src: NET1.ip, table: '100' }], `${label(adder)} ADD: from 10.2.0.2 lookup 100`);
  t.ok(await farPeerReaches(w), `${label(adder)} ADD: the far peer is answered`);
  const del = await call(deleter, 'DEL');
  t.equal(del.code, 0, `${label(deleter)} DEL ${del.stdout}`);
  t.same(await extraRules(w.pod.name), [], `${label(deleter)} DEL removed the rule`);
  if (deleter === DIST_BIN) t.same(await routesOutsideMain(w.pod.name), [], 'our DEL emptied the table too');
  await run('ip', ['-n', w.pod.name, 'link', 'del', 'net1']);
  t.same(await routesOutsideMain(w.pod.name), [], 'nothing left once net1 is gone');
  // Go v1.1.1 fails a DEL whose interface is gone; v1.9.1 (and ours) succeed.
  if (deleter === DIST_BIN) t.equal((await call(deleter, 'DEL')).code, 0, 'our DEL again, net1 gone');
}

t.test('control: Go ADD → Go DEL', { skip }, (t) => handOver(t, GO_BIN, GO_BIN));
t.test('Go ADD → our DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('our ADD → Go DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));

t.test('Go ADD, then our ADD on a second pod interface: the next free table', { skip }, async (t) => {
  const w = await sbrWorld(t);
  await run('ip', ['-n', w.pod.name, 'rule', 'add', 'from', '10.1.0.2', 'table', '100']);
  const conf = sbrConf('1.0.0', w.pod);
  const add = await execPlugin('sbr', { command: 'ADD', containerId: 'sbr-interop', netns: w.pod.path, ifname: 'net1' }, conf, GO_BIN);
  t.equal(add.code, 0);
  const goTable = (await extraRules(w.pod.name)).find((r) => r.src === NET1.ip)?.table;
  t.equal(goTable, '101', 'Go picks 101 past a taken 100');
  t.equal((await execPlugin('sbr', { command: 'DEL', containerId: 'sbr-interop', netns: w.pod.path, ifname: 'net1' }, conf)).code, 0);
  t.same(
    (await extraRules(w.pod.name)).map((r) => r.src),
    ['10.1.0.2'],
    'our DEL removed only the rule of net1',
  );
});

t.test('divergences, the Go plugin as the oracle: a failed ADD and a DEL with the netns gone', { skip }, async (t) => {
  const w = await sbrWorld(t);
  const conf = sbrConf('1.0.0', w.pod) as { prevResult: { ips: { gateway: string }[] } };
  const bad = { ...conf, prevResult: { ...conf.prevResult, ips: [{ ...conf.prevResult.ips[0]!, gateway: '10.9.9.9' }] } };
  const call = (dir: string, command: 'ADD' | 'DEL', netns = w.pod.path) =>
    execPlugin('sbr', { command, containerId: 'sbr-div', netns, ifname: 'net1' }, bad, dir);
  t.not((await call(GO_BIN, 'ADD')).code, 0, 'Go ADD with an unreachable gateway fails');
  t.match(await extraRules(w.pod.name), [{ src: NET1.ip }], '… and leaves its rule behind');
  t.equal((await call(DIST_BIN, 'DEL')).code, 0, 'our DEL clears it');
  t.not((await call(DIST_BIN, 'ADD')).code, 0, 'our ADD fails too');
  t.same(await extraRules(w.pod.name), [], '… and takes its rule back');
  // Go's lock opens the path with O_CREATE: its DEL leaves an empty file where the netns was.
  const gone = join(tempDir(t), 'netns-gone');
  t.equal((await call(DIST_BIN, 'DEL', gone)).code, 0, 'our DEL with the netns gone succeeds');
  t.notOk(existsSync(gone), '… and creates nothing');
  const go = await call(GO_BIN, 'DEL', gone);
  t.not(go.code, 0, `Go DEL with the netns gone fails ${go.stdout}`);
  t.ok(existsSync(gone), '… and leaves a file at the netns path');
});
