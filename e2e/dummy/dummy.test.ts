// the built dummy (+ host-local) in throwaway pod netns: every spec version (ADD → a dummy link,
// up, with the IPAM's address → CHECK → DEL leaves nothing → DEL again), CHECK noticing a change,
// a failing ADD undone, config errors, DEL when things are gone, STATUS and GC. This kernel may
// have no dummy driver: then the file skips, and the kernel lab runs it (e2e/kernel-lab.txt).
import t from 'tap';
import { impl } from '../helpers/impl.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { hostLocal, podLink, podLinkNames, podRun, SUBNET } from '../helpers/pod-link.ts';
import { ipJson, needsRoot, run } from '../../test-support/sh.ts';
import { hasCheck, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';

const skip = impl.lacks('kernel-dummy');
const dummyConf = (cniVersion: string, ipam?: (dataDir: string) => object) => (dataDir: string) => ({
  cniVersion,
  name: 'dummynet',
  type: 'dummy',
  ...(ipam && { ipam: ipam(dataDir) }),
});

t.test('every spec version: ADD makes an up dummy with the address, CHECK, DEL leaves nothing, DEL again', { skip }, async (t) => {
  for (const v of SPEC_VERSIONS) {
    const r = await podRun(
      t,
      'dummy',
      dummyConf(v, (d) => hostLocal(d)),
      `dummy-${v}`,
    );
    const add = await r.call('ADD');
    t.equal(add.code, 0, `${v} ADD ${add.stdout}${add.stderr}`);
    const l = await podLink(r.pod.name);
    t.equal(l?.linkinfo?.info_kind, 'dummy', `${v}: a dummy link`);
    t.ok(l?.flags.includes('UP'), `${v}: up`);
    const ip = isPre030(v) ? add.json.ip4.ip : add.json.ips[0].address;
    t.match(ip, /^10\.77\.0\.\d+\/24$/, `${v}: an address from the range`);
    t.same(
      l?.addr_info?.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`),
      [ip],
      `${v}: on the dummy`,
    );
    if (!isPre030(v)) {
      t.match(add.json.interfaces, [{ name: 'eth0', mac: l?.address, sandbox: r.pod.path }], `${v}: the result names the dummy`);
      t.equal(add.json.ips[0].interface, 0, `${v}: the address belongs to it`);
    }
    const routes = await ipJson<{ dst: string; gateway?: string }[]>(r.pod.name, ['-4', 'route', 'show']);
    t.ok(
      routes.some((rt) => rt.dst === '10.78.0.0/16' && rt.gateway === '10.77.0.1'),
      `${v}: the IPAM's route`,
    );
    if (hasCheck(v)) t.equal((await r.call('CHECK', { prevResult: add.json })).code, 0, `${v}: CHECK passes`);
    t.equal((await r.call('DEL', { prevResult: add.json })).code, 0, `${v}: DEL`);
    t.same(await podLinkNames(r.pod.name), [], `${v}: no link left`);
    t.same(ipFiles(r.dataDir, 'dummynet'), [], `${v}: no allocation left`);
    t.equal((await r.call('DEL')).code, 0, `${v}: DEL again`);
  }
});

t.test('CHECK notices a link set down, another MAC, a removed address, a removed link', { skip }, async (t) => {
  const r = await podRun(
    t,
    'dummy',
    dummyConf('1.1.0', (d) => hostLocal(d)),
  );
  const add = await r.call('ADD');
  t.equal(add.code, 0, `ADD ${add.stdout}`);
  const check = () => r.call('CHECK', { prevResult: add.json }).then((c) => c.json?.msg as string | undefined);
  await run('ip', ['-n', r.pod.name, 'link', 'set', 'eth0', 'down']);
  t.equal(await check(), 'Interface eth0 is down');
  await run('ip', ['-n', r.pod.name, 'link', 'set', 'eth0', 'up']);
  t.equal(await check(), undefined, 'passes again once up');
  await run('ip', ['-n', r.pod.name, 'link', 'set', 'eth0', 'address', '02:00:00:00:00:42']);
  t.match(await check(), /^Interface eth0 Mac .* doesn't match container Mac: 02:00:00:00:00:42$/);
  await run('ip', ['-n', r.pod.name, 'link', 'set', 'eth0', 'address', add.json.interfaces[0].mac]);
  const ip = add.json.ips[0].address as string;
  await run('ip', ['-n', r.pod.name, 'addr', 'del', ip, 'dev', 'eth0']);
  t.equal(await check(), `Failed to match addr ${ip} on interface eth0`);
  await run('ip', ['-n', r.pod.name, 'link', 'del', 'eth0']);
  t.equal(await check(), 'Container Interface name in prevResult: eth0 not found');
  t.equal((await r.call('DEL')).code, 0, 'DEL with the link gone');
  t.same(ipFiles(r.dataDir, 'dummynet'), [], 'the allocation is released');
});

t.test('a failing ADD leaves nothing: IPAM failing; the name already taken after IPAM allocated', { skip }, async (t) => {
  const one = (d: string) => hostLocal(d, { ranges: [[{ subnet: SUBNET, rangeStart: '10.77.0.9', rangeEnd: '10.77.0.9' }]] });
  const first = await podRun(t, 'dummy', dummyConf('1.0.0', one), 'dummy-first');
  t.equal((await first.call('ADD')).code, 0, 'first ADD');
  const second = await podRun(t, 'dummy', () => ({ ...dummyConf('1.0.0')(''), ipam: one(first.dataDir) }), 'dummy-second');
  const failed = await second.call('ADD');
  t.not(failed.code, 0, `second ADD fails: ${failed.stdout}`);
  t.same(await podLinkNames(second.pod.name), [], 'no dummy');
  await first.call('DEL');
  const taken = await podRun(
    t,
    'dummy',
    dummyConf('1.0.0', (d) => hostLocal(d)),
  );
  await run('ip', ['-n', taken.pod.name, 'link', 'add', 'eth0', 'type', 'bridge']);
  const clash = await taken.call('ADD');
  t.match(clash.json, { code: 999, msg: 'failed to create dummy: file exists' });
  t.equal((await podLink(taken.pod.name))?.linkinfo?.info_kind, 'bridge', 'the existing link is untouched');
  t.same(ipFiles(taken.dataDir, 'dummynet'), [], 'no allocation');
});

t.test('no ipam: every verb answers code 7 with the reference message, nothing made', { skip: needsRoot }, async (t) => {
  const r = await podRun(t, 'dummy', dummyConf('1.1.0'));
  for (const verb of ['ADD', 'CHECK', 'DEL', 'STATUS'] as const) {
    const out = await r.call(verb);
    t.match(out.json, { code: 7, msg: 'dummy interface requires an IPAM configuration' }, verb);
  }
  t.same(await podLinkNames(r.pod.name), [], 'no link');
});

t.test('DEL succeeds when the netns is gone; STATUS; GC frees allocations no longer listed', { skip }, async (t) => {
  const r = await podRun(
    t,
    'dummy',
    dummyConf('1.1.0', (d) => hostLocal(d)),
  );
  t.equal((await r.call('ADD')).code, 0, 'ADD');
  t.equal((await r.call('STATUS')).code, 0, 'STATUS');
  t.equal((await r.call('GC', { config: { 'cni.dev/valid-attachments': [{ containerID: 'dummy-e2e', ifname: 'eth0' }] } })).code, 0, 'GC listing it');
  t.equal(ipFiles(r.dataDir, 'dummynet').length, 1, 'keeps the allocation');
  t.equal((await r.call('GC', { config: { 'cni.dev/valid-attachments': [] } })).code, 0, 'GC listing nothing');
  t.same(ipFiles(r.dataDir, 'dummynet'), [], 'frees it (the reference has no GC)');
  await run('ip', ['netns', 'del', r.pod.name]);
  t.equal((await r.call('DEL')).code, 0, 'DEL with the netns gone');
  t.equal((await r.call('DEL')).code, 0, 'DEL again');
});

t.test('DEL runs every step: an IPAM DEL that fails still lets the dummy go, and the failure is reported', { skip }, async (t) => {
  const r = await podRun(
    t,
    'dummy',
    dummyConf('1.0.0', (d) => hostLocal(d)),
  );
  t.equal((await r.call('ADD')).code, 0, 'ADD');
  const del = await r.call('DEL', { config: { ipam: { type: 'cnits-no-such-ipam' } } });
  t.equal(del.code, 1, `DEL fails: ${del.stdout}`);
  t.match(del.json?.msg, /cnits-no-such-ipam/, 'naming the IPAM plugin it could not run');
  t.same(await podLinkNames(r.pod.name), [], 'the dummy is gone all the same (the reference stops before it)');
  t.equal((await r.call('DEL')).code, 0, 'a DEL with the right config then releases the allocation');
  t.same(ipFiles(r.dataDir, 'dummynet'), [], 'nothing left');
});
