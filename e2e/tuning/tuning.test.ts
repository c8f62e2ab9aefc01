// the built tuning, on a veth "eth0" inside a throwaway pod netns (the peer stays in the
// same netns: tuning only needs a link to tune). Every spec version: ADD → state → CHECK → DEL
// restores → DEL again; a failing ADD undoes; a bad config changes nothing; DEL when things are gone.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { execPlugin, tempDir } from '../helpers/plugins.ts';
import { needsRoot, run } from '../../test-support/sh.ts';
import { hasCheck, SPEC_VERSIONS } from '../helpers/spec-versions.ts';
import { link, podWithEth0, sysctl, TUNE, tuningConf } from '../helpers/tuning.ts';

t.test('every spec version: ADD tunes, CHECK compares, DEL restores, DEL again', { skip: needsRoot }, async (t) => {
  for (const v of SPEC_VERSIONS) {
    const pod = await podWithEth0(t);
    const dataDir = tempDir(t);
    const before = await link(pod.name);
    const conf = tuningConf(v, dataDir, TUNE, pod);
    const call = (command: 'ADD' | 'DEL' | 'CHECK') => execPlugin('tuning', { command, containerId: `tun-${v}`, netns: pod.path, ifname: 'eth0' }, conf);
    const add = await call('ADD');
    t.equal(add.code, 0, `${v} ADD ${add.stdout}${add.stderr}`);
    if (!v.startsWith('0.1') && !v.startsWith('0.2')) t.equal(add.json.interfaces[0].mac, 'c2:b0:57:49:47:f1', `${v}: the result carries the new MAC`);
    else t.same(add.json.ip4, { ip: '10.1.0.2/24' }, `${v}: prevResult passed through`);
    const after = await link(pod.name);
    t.match(after, { address: 'c2:b0:57:49:47:f1', mtu: 1400, txqlen: 321 }, `${v}: attributes set`);
    t.ok(after.flags.includes('PROMISC') && after.flags.includes('ALLMULTI'), `${v}: promisc and allmulti on`);
    t.equal(await sysctl(pod.name, 'net.ipv4.conf.eth0.arp_filter'), '1', `${v}: IFNAME names the container interface`);
    t.equal(await sysctl(pod.name, 'net.core.somaxconn'), '512');
    const saved = join(dataDir, `tun-${v}_eth0.json`);
    t.same(
      JSON.parse(readFileSync(saved, 'utf8')),
      { mac: before.address, promisc: false, mtu: before.mtu, allmulti: false, txQLen: before.txqlen },
      `${v}: what was there is saved`,
    );
    if (hasCheck(v)) {
      const check = await call('CHECK');
      t.equal(check.code, 0, `${v}: CHECK passes right after ADD ${check.stdout}`);
      await run('ip', ['-n', pod.name, 'link', 'set', 'eth0', 'mtu', '1300']);
      const bad = await call('CHECK');
      t.match(bad.json, { code: 999, msg: /configured MTU of eth0 is 1400, current value is 1300/ }, `${v}: a changed MTU fails CHECK`);
    }
    t.equal((await call('DEL')).code, 0, `${v} DEL`);
    const restored = await link(pod.name);
    t.match(restored, { address: before.address, mtu: before.mtu, txqlen: before.txqlen }, `${v}: attributes restored`);
    t.notOk(restored.flags.includes('PROMISC') || restored.flags.includes('ALLMULTI'), `${v}: promisc and allmulti off again`);
    t.notOk(existsSync(saved), `${v}: the saved copy is gone`);
    t.equal((await call('DEL')).code, 0, `${v}: a second DEL succeeds`);
  }
});

t.test('a failing ADD puts back what it changed', { skip: needsRoot }, async (t) => {
  const pod = await podWithEth0(t);
  const dataDir = tempDir(t);
  const before = await link(pod.name);
  const arp = await sysctl(pod.name, 'net.ipv4.conf.eth0.arp_filter');
  // The MAC is set before the MTU; a veth refuses an MTU under 68.
  const conf = tuningConf('1.0.0', dataDir, { mac: '02:00:00:00:00:09', mtu: 10, promisc: true, sysctl: { 'net.ipv4.conf.IFNAME.arp_filter': '1' } }, pod);
  const add = await execPlugin('tuning', { command: 'ADD', containerId: 'tun-fail', netns: pod.path, ifname: 'eth0' }, conf);
  t.not(add.code, 0, 'ADD fails');
  t.match(add.json, { code: 999, msg: /failed to set MTU/ });
  t.match(await link(pod.name), { address: before.address, mtu: before.mtu, promiscuity: 0 }, 'MAC and promiscuous mode back');
  t.equal(await sysctl(pod.name, 'net.ipv4.conf.eth0.arp_filter'), arp, 'the sysctl back');
  t.notOk(existsSync(join(dataDir, 'tun-fail_eth0.json')), 'no saved copy left');
});

t.test('a bad config is refused before anything changes', { skip: needsRoot }, async (t) => {
  const pod = await podWithEth0(t);
  const dataDir = tempDir(t);
  const cases: [object, RegExp][] = [
    [{ sysctl: { 'kernel.hostname': 'x' } }, /invalid net sysctl key/],
    [{ sysctl: { 'net.core.somaxconn': '600' }, mac: 'zz' }, /invalid args zz for MAC addr/],
    [{ mtu: -1 }, /invalid MTU -1/],
    [{ txQLen: -5 }, /invalid txQLen/],
    // the kernel sets 1 and drops what follows the newline without an error
    [{ sysctl: { 'net.core.somaxconn': '1\n2' } }, /invalid sysctl value "1\\n2" for net\.core\.somaxconn/],
    [{ args: { cni: { sysctl: { 'net.core.somaxconn': '600\u0000' } } } }, /invalid sysctl value "600\\u0000"/],
  ];
  for (const [extra, msg] of cases) {
    const somaxconn = await sysctl(pod.name, 'net.core.somaxconn');
    const add = await execPlugin(
      'tuning',
      { command: 'ADD', containerId: 'tun-bad', netns: pod.path, ifname: 'eth0' },
      tuningConf('1.0.0', dataDir, extra, pod),
    );
    t.match(add.json, { code: 7, msg }, JSON.stringify(extra));
    t.equal(await sysctl(pod.name, 'net.core.somaxconn'), somaxconn, 'no sysctl written');
  }
  const noPrev = { cniVersion: '1.0.0', name: 'tunenet', type: 'tuning', mtu: 1400 };
  const add = await execPlugin('tuning', { command: 'ADD', containerId: 'tun-bad', netns: pod.path, ifname: 'eth0' }, noPrev);
  t.match(add.json, { code: 7, msg: 'Required prevResult missing' });
});

t.test('DEL after the interface or the netns is gone succeeds and forgets the saved copy', { skip: needsRoot }, async (t) => {
  for (const gone of ['link', 'netns'] as const) {
    const pod = await podWithEth0(t);
    const dataDir = tempDir(t);
    const conf = tuningConf('1.0.0', dataDir, { mtu: 1400 }, pod);
    const call = (command: 'ADD' | 'DEL') => execPlugin('tuning', { command, containerId: 'tun-gone', netns: pod.path, ifname: 'eth0' }, conf);
    t.equal((await call('ADD')).code, 0);
    if (gone === 'link') await run('ip', ['-n', pod.name, 'link', 'del', 'eth0']);
    else await run('ip', ['netns', 'del', pod.name]);
    t.equal((await call('DEL')).code, 0, `DEL with the ${gone} gone`);
    // The reference keeps the file for ever (divergence).
    t.notOk(existsSync(join(dataDir, 'tun-gone_eth0.json')), `no saved copy left with the ${gone} gone`);
  }
});
