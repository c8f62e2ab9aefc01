// lib/linux against a real kernel, in throwaway namespaces. Runs the sources
// (not the built forms): this is the layer the plugins are built on.
import t, { type Test } from 'tap';
import { execFile, spawnSync } from 'node:child_process';
import { statSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { LOCK_EX, withNetns } from '../../lib/linux/addon.ts';
import {
  Netns,
  addAddress,
  delAddress,
  deleteLink,
  flock,
  getLinkByIndex,
  getLinkByName,
  listAddresses,
  listLinks,
  readSysctl,
  setLinkDown,
  setLinkMtu,
  setLinkUp,
  writeSysctl,
} from '../../lib/linux/index.ts';
import { makeNetns } from '../helpers/netns.ts';
import { tempDir } from '../helpers/plugins.ts';
import { ipJson, isRoot } from '../../test-support/sh.ts';
import { NOT_ROOT } from '../../test-support/skip-reasons.ts';

// plan(0, why) is tap's "skip this whole file", with the reason in the output.
if (!isRoot) t.plan(0, NOT_ROOT);

const selfIno = () => statSync('/proc/thread-self/ns/net').ino;

interface IpLink {
  ifname: string;
  flags: string[];
  mtu: number;
}

/** Opens the test netns and closes it in teardown, also when an assertion fails. */
async function openTestNetns(t: Test): Promise<{ ns: Netns; name: string; path: string }> {
  const tn = await makeNetns(t, 'lx');
  const ns = Netns.open(tn.path);
  t.teardown(() => ns.close());
  return { ns, ...tn };
}

if (isRoot) {
  t.test('Netns.open refuses what is not a netns', async (t) => {
    const dir = tempDir(t);
    const missing = join(dir, 'nope');
    t.throws(() => Netns.open(missing), {
      name: 'NetnsError',
      code: 'ENOENT',
      path: missing,
      message: `failed to open netns "${missing}": failed to Statfs "${missing}": no such file or directory`,
    });
    const file = join(dir, 'file');
    writeFileSync(file, '');
    t.throws(() => Netns.open(file), {
      name: 'NetnsError',
      code: 'NOT_NETNS',
      path: file,
      message: new RegExp(`^failed to open netns "${file}": unknown FS magic on "${file}": [0-9a-f]+$`),
    });
    t.throws(() => Netns.open(dir), { code: 'NOT_NETNS' }, 'a directory');
    const fifo = join(dir, 'fifo');
    await promisify(execFile)('mkfifo', [fifo]);
    t.throws(() => Netns.open(fifo), { code: 'NOT_NETNS' }, 'a FIFO, without hanging in open()');
    t.throws(() => Netns.open('/proc/self/ns/uts'), { code: 'ENTER_FAILED' }, 'another kind of namespace fails setns');
  });

  t.test('withNetns switches only for the callback, and restores when it throws', async (t) => {
    const { ns, path } = await openTestNetns(t);
    const host = selfIno();
    const target = statSync(path).ino;
    t.not(host, target);
    t.equal(ns.ino, target, 'Netns.ino is the namespace inode');

    t.equal(
      withNetns(ns.fd, () => selfIno()),
      target,
      'inside',
    );
    t.equal(selfIno(), host, 'back');

    t.throws(
      () =>
        withNetns(ns.fd, () => {
          throw new RangeError('from the callback');
        }),
      RangeError,
    );
    t.equal(selfIno(), host, 'restored after a throw');

    t.throws(
      () =>
        ns.run(() => {
          throw new Error('boom');
        }),
      { message: 'boom' },
    );
    t.equal(selfIno(), host, 'restored after a throw through Netns.run');

    t.throws(() => withNetns(9999, () => 1), { code: 'EBADF' }, 'a bad fd never runs the callback');
    t.equal(selfIno(), host);

    const hostNs = Netns.host();
    t.teardown(() => hostNs.close());
    t.equal(hostNs.ino, host);
    t.equal(
      ns.run(() => hostNs.run(() => selfIno())),
      host,
      'host.run nested in a container run goes back to the host',
    );
    t.equal(
      hostNs.run(() => ns.run(() => selfIno())),
      target,
      'and the other way',
    );
    t.equal(selfIno(), host);

    t.throws(() => ns.run(async () => 1), TypeError, 'async callbacks are refused');
    t.equal(selfIno(), host);
  });

  t.test('links: lo in a new netns', async (t) => {
    const { ns, name } = await openTestNetns(t);
    const links = await listLinks(ns);
    t.same(
      links.map((l) => l.name),
      ['lo'],
      'the socket talks to the container netns',
    );
    const lo = await getLinkByName(ns, 'lo');
    t.match(lo, { index: 1, name: 'lo', up: false, operState: 'DOWN', mtu: 65536, mac: '00:00:00:00:00:00' });
    t.notOk(lo && 'kind' in lo, 'lo has no kind');
    t.equal(await getLinkByName(ns, 'eth0'), undefined);
    t.equal(await getLinkByName(ns, 'x'.repeat(16)), undefined, 'a name too long to exist');
    t.equal(await getLinkByIndex(ns, 4242), undefined);

    await setLinkUp(ns, 1);
    const [ipLo] = await ipJson<IpLink[]>(name, ['link', 'show', 'lo']);
    t.ok(ipLo?.flags.includes('UP'), 'ip sees lo UP');
    t.match(await getLinkByIndex(ns, 1), { up: true, operState: 'UNKNOWN' });

    const addrs = await listAddresses(ns, { index: 1 });
    t.same(addrs.map((a) => `${a.address}/${a.prefixLen}`).sort(), ['127.0.0.1/8', '::1/128'], 'kernel adds the loopback addresses once lo is up');
    t.same(
      addrs.map((a) => a.scope),
      [254, 254],
      'host scope',
    );
    t.same(
      (await listAddresses(ns, { family: 6 })).map((a) => a.address),
      ['::1'],
    );
    t.same(await listAddresses(ns, { index: 2 }), []);

    await setLinkMtu(ns, 1, 9000);
    t.equal((await ipJson<IpLink[]>(name, ['link', 'show', 'lo']))[0]?.mtu, 9000);
    await setLinkDown(ns, 1);
    t.equal((await getLinkByName(ns, 'lo'))?.up, false);
    await t.rejects(setLinkUp(ns, 4242), { name: 'NetlinkError', code: 'ENODEV', errno: 19, op: 'RTM_SETLINK' });
    await deleteLink(ns, 4242);
    t.pass('deleting a missing link is not an error');
  });

  t.test('addresses: add, duplicate, delete twice', async (t) => {
    const { ns, name } = await openTestNetns(t);
    await setLinkUp(ns, 1);
    await addAddress(ns, 1, '10.250.0.7/24');
    await addAddress(ns, 1, 'fd00:250::7/64');
    const got = await listAddresses(ns, { index: 1 });
    t.ok(got.some((a) => a.family === 4 && a.address === '10.250.0.7' && a.prefixLen === 24 && a.scope === 0));
    t.ok(got.some((a) => a.family === 6 && a.address === 'fd00:250::7' && a.prefixLen === 64));
    const [ipLo] = await ipJson<{ addr_info: { local: string; broadcast?: string }[] }[]>(name, ['addr', 'show', 'lo']);
    t.equal(ipLo?.addr_info.find((a) => a.local === '10.250.0.7')?.broadcast, '10.250.0.255', 'IPv4 broadcast set like the reference');
    await t.rejects(addAddress(ns, 1, '10.250.0.7/24'), { code: 'EEXIST', message: 'file exists' });
    await t.rejects(addAddress(ns, 1, '10.250.0.7'), TypeError);
    for (let i = 0; i < 2; i++) {
      await delAddress(ns, 1, '10.250.0.7/24');
      await delAddress(ns, 1, 'fd00:250::7/64');
    }
    await delAddress(ns, 4242, '10.250.0.7/24');
    const left = await listAddresses(ns, { index: 1 });
    t.notOk(
      left.some((a) => a.address === '10.250.0.7' || a.address === 'fd00:250::7'),
      'both gone',
    );
  });

  t.test('the netlink socket: dumps of many datagrams, answers drained, one netns', async (t) => {
    const { ns, name } = await openTestNetns(t);
    // ~1.5 KB per link: 300 links answer a dump in many datagrams.
    const batch = Array.from({ length: 300 }, (_, i) => `link add d${i} type bridge`).join('\n');
    const made = spawnSync('ip', ['-n', name, '-batch', '-'], { input: batch, encoding: 'utf8' });
    t.equal(made.status, 0, made.stderr);
    const links = await listLinks(ns);
    t.equal(links.length, 301, 'every link of the dump');
    t.same(links.filter((l) => l.name.startsWith('d')).length, 300);
    // A GET answers with the object and then the ACK; the next request must get its own answer.
    for (let i = 0; i < 5; i++) t.equal((await getLinkByName(ns, `d${i}`))?.name, `d${i}`);
    t.equal((await getLinkByIndex(ns, 1))?.name, 'lo');
    const host = Netns.host();
    t.teardown(() => host.close());
    t.equal(await getLinkByName(host, 'd0'), undefined, 'the host socket does not see the netns');
  });

  t.test('the addon opens netlink sockets of a protocol, in a netns or here', async (t) => {
    const { nlOpen, nlClose } = await import('../../lib/linux/addon.ts');
    const { path } = await openTestNetns(t);
    const nsFd = openSync(path, 'r');
    t.teardown(() => closeSync(nsFd));
    const host = selfIno();
    for (const fd of [nlOpen(0), nlOpen(12), nlOpen(0, nsFd)]) nlClose(fd);
    t.equal(selfIno(), host, 'back in our own netns');
    t.throws(() => nlOpen(4242), { code: 'EPROTONOSUPPORT', syscall: 'socket' });
    t.throws(() => nlOpen(0, 9999), { code: 'EBADF', syscall: 'setns' });
    t.equal(selfIno(), host);
  });

  t.test('sysctls are read and written inside the netns only', async (t) => {
    const { ns } = await openTestNetns(t);
    const host = Netns.host();
    t.teardown(() => host.close());
    const key = 'net.ipv4.conf.lo.forwarding';
    const hostBefore = readSysctl(host, key);
    const inside = readSysctl(ns, key);
    const flipped = inside === '1' ? '0' : '1';
    writeSysctl(ns, key, flipped);
    t.equal(readSysctl(ns, key), flipped, 'written inside');
    t.equal(readSysctl(host, key), hostBefore, 'host value unchanged');
    t.equal(selfIno(), statSync('/proc/self/ns/net').ino);
    t.throws(() => readSysctl(ns, 'net.ipv4.conf.nosuchlink.forwarding'), { code: 'ENOENT' });
    t.throws(() => writeSysctl(ns, 'net/../../etc/hostname', 'x'), TypeError);
  });

  t.test('closing', async (t) => {
    const { ns } = await openTestNetns(t);
    ns.close();
    await t.rejects(listLinks(ns), { name: 'NetlinkError', message: 'Netlink socket is closed' }, 'a request after close is rejected');
    t.throws(() => ns.run(() => 1), { code: 'CLOSED' });
    ns.close();
    t.pass('close is idempotent');
  });

  t.test('flock: a second process gets EWOULDBLOCK with LOCK_NB', async (t) => {
    const file = join(tempDir(t), 'lock');
    writeFileSync(file, '');
    const fd = openSync(file, 'r');
    t.teardown(() => closeSync(fd));
    flock(fd, LOCK_EX);
    const child = `
      const m = require(process.argv[1]);
      const fd = require('node:fs').openSync(process.argv[2], 'r');
      try { m.flock(fd, m.LOCK_EX | m.LOCK_NB); console.log('locked'); }
      catch (e) { console.log(e.code + ' ' + e.errno); }`;
    const addon = join(import.meta.dirname, '..', '..', 'native', 'build', 'Release', 'cni_native.node');
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', child, addon, file]);
    t.equal(stdout.trim(), 'EWOULDBLOCK 11');
  });

  t.test('a process using a container netns exits on its own', async (t) => {
    const { path } = await openTestNetns(t);
    // No close(): the socket is a plain fd that no event-loop handle watches,
    // so a forgotten handle must not keep a plugin process alive.
    const script = `
      import { Netns, listLinks } from ${JSON.stringify(join(import.meta.dirname, '..', '..', 'lib', 'linux', 'index.ts'))};
      const ns = Netns.open(process.argv[1]);
      console.log((await listLinks(ns)).length);`;
    const started = Date.now();
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, path], {
      timeout: 20_000,
    });
    t.equal(stdout.trim(), '1');
    t.ok(Date.now() - started < 20_000);
  });
}
