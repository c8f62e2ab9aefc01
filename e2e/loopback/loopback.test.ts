// loopback through the built executable, for every spec version, as a runtime runs it.
import t from 'tap';
import { attachment, gc, status } from '../helpers/conflist.ts';
import { makeNetns } from '../helpers/netns.ts';
import { execPlugin } from '../helpers/plugins.ts';
import { ipJson, needsRoot } from '../../test-support/sh.ts';
import { allVersionsRan, hasCheck, ipsCarryVersion, isPre030, SPEC_VERSIONS } from '../helpers/spec-versions.ts';

interface IpLink {
  ifname: string;
  flags: string[];
}
async function loIsUp(ns: string): Promise<boolean> {
  const [lo] = await ipJson<IpLink[]>(ns, ['link', 'show', 'lo']);
  return lo?.flags.includes('UP') ?? false;
}

const done: string[] = [];
for (const version of SPEC_VERSIONS) {
  t.test(`loopback ${version}: ADD → CHECK → DEL → DEL`, { skip: needsRoot }, async (t) => {
    const ns = await makeNetns(t, 'lo');
    const list = { cniVersion: version, name: 'lo-net', plugins: [{ type: 'loopback' }] };
    const a = attachment(list, { containerId: `ctr-${version}`, netns: ns.path, ifname: 'eth0' });

    t.equal(await loIsUp(ns.name), false, 'lo starts down in a new netns');
    const result = await a.add();
    t.equal(result.cniVersion, version, 'result is in the config version');
    if (isPre030(version)) {
      t.same(result.ip4, { ip: '127.0.0.1/8' }, '0.x result carries ip4');
      t.same(result.ip6, { ip: '::1/128' }, '0.x result carries ip6');
      t.notOk('interfaces' in result, 'no interfaces before 0.3.0');
    } else {
      t.same(result.interfaces, [{ name: 'lo', mac: '00:00:00:00:00:00', sandbox: ns.path }]);
      const v = ipsCarryVersion(version);
      t.same(result.ips, [
        { ...(v && { version: '4' }), address: '127.0.0.1/8', interface: 0 },
        { ...(v && { version: '6' }), address: '::1/128', interface: 0 },
      ]);
    }
    t.equal(await loIsUp(ns.name), true, 'lo is up after ADD');

    if (hasCheck(version)) await t.resolves(a.check(), 'CHECK passes after ADD');
    await a.del();
    t.equal(await loIsUp(ns.name), false, 'lo is down after DEL');
    await t.resolves(a.del(), 'a second DEL succeeds');
    done.push(version);
  });
}
allVersionsRan(t, done, needsRoot);

t.test('CHECK fails when lo is down', { skip: needsRoot }, async (t) => {
  const ns = await makeNetns(t, 'lo');
  const conf = { cniVersion: '1.0.0', name: 'lo-net', type: 'loopback' };
  const r = await execPlugin('loopback', { command: 'CHECK', containerId: 'c1', netns: ns.path, ifname: 'eth0' }, conf);
  t.equal(r.code, 1);
  t.match(r.json, { code: 999, msg: 'loopback interface is down' });
});

t.test('a chained loopback passes prevResult through unchanged', { skip: needsRoot }, async (t) => {
  const ns = await makeNetns(t, 'lo');
  const prevResult = {
    cniVersion: '1.0.0',
    interfaces: [{ name: 'eth0', mac: '0a:58:0a:f4:00:05', sandbox: ns.path }],
    ips: [{ address: '10.244.0.5/24', gateway: '10.244.0.1', interface: 0 }],
    routes: [{ dst: '0.0.0.0/0' }],
    dns: { nameservers: ['10.96.0.10'] },
  };
  const conf = { cniVersion: '1.0.0', name: 'lo-net', type: 'loopback', prevResult };
  const r = await execPlugin('loopback', { command: 'ADD', containerId: 'c1', netns: ns.path, ifname: 'eth0' }, conf);
  t.equal(r.code, 0, r.stdout);
  t.same(r.json, prevResult);
  t.equal(await loIsUp(ns.name), true);
});

t.test('DEL succeeds without a netns, or with one that is gone', { skip: needsRoot }, async (t) => {
  const conf = { cniVersion: '1.1.0', name: 'lo-net', type: 'loopback' };
  for (const netns of ['', '/run/netns/cnits-does-not-exist']) {
    const r = await execPlugin('loopback', { command: 'DEL', containerId: 'c1', netns, ifname: 'eth0' }, conf);
    t.equal(r.code, 0, `DEL with netns ${JSON.stringify(netns)}: ${r.stdout}`);
    t.equal(r.stdout, '', 'DEL prints nothing');
  }
});

t.test('STATUS and GC succeed for a 1.1.0 list', { skip: needsRoot }, async (t) => {
  const list = { cniVersion: '1.1.0', name: 'lo-net', plugins: [{ type: 'loopback' }] };
  await t.resolves(status(list));
  await t.resolves(gc(list, [{ containerID: 'c1', ifname: 'eth0' }]));
});

t.test('VERSION lists all seven spec versions', { skip: needsRoot }, async (t) => {
  const r = await execPlugin('loopback', { command: 'VERSION' }, '');
  t.equal(r.code, 0);
  t.same(r.json, { cniVersion: '1.1.0', supportedVersions: ['0.1.0', '0.2.0', '0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] });
});
