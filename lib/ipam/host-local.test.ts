import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { cmdAdd, cmdCheck, cmdDel } from './host-local.ts';
import { makeRequest, tempDir, type RequestOptions } from './test-request.ts';

function network(t: Test, ipam: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const dataDir = tempDir(t);
  const config = { cniVersion: '1.1.0', name: 'net1', type: 'bridge', ipam: { type: 'host-local', dataDir, ...ipam }, ...extra };
  const dir = join(dataDir, 'net1');
  return {
    dir,
    add: (o: RequestOptions = {}, more: Record<string, unknown> = {}) => cmdAdd(makeRequest({ ...config, ...more }, o)),
    del: (o: RequestOptions = {}) => cmdDel(makeRequest(config, { ...o, command: 'DEL' })),
    check: (o: RequestOptions = {}) => cmdCheck(makeRequest(config, { ...o, command: 'CHECK' })),
    files: () =>
      existsSync(dir)
        ? readdirSync(dir)
            .filter((f) => !f.startsWith('last_') && f !== 'lock')
            .sort()
        : [],
    read: (f: string) => readFileSync(join(dir, f), 'latin1'),
  };
}

const v4 = [[{ subnet: '10.1.0.0/29' }]];
const dual = [[{ subnet: '10.1.0.0/29' }], [{ subnet: 'fd00:1::/125' }]];

t.test('ADD: one address per range set with its gateway, routes and DNS; files written', async (t) => {
  const resolv = join(tempDir(t), 'resolv.conf');
  writeFileSync(resolv, 'nameserver 10.9.0.10\nsearch a.example b.example\n');
  const n = network(t, { ranges: dual, routes: [{ dst: '0.0.0.0/0' }, { dst: '::/0', gw: 'fd00:1::1' }], resolvConf: resolv });
  const r = await n.add({ containerId: 'ctr1', ifname: 'eth0' });
  t.same(r, {
    cniVersion: '1.1.0',
    ips: [
      { address: '10.1.0.2/29', gateway: '10.1.0.1' },
      { address: 'fd00:1::2/125', gateway: 'fd00:1::1' },
    ],
    routes: [{ dst: '0.0.0.0/0' }, { dst: '::/0', gw: 'fd00:1::1' }],
    dns: { nameservers: ['10.9.0.10'], search: ['a.example', 'b.example'] },
  });
  t.same(n.files(), ['10.1.0.2', 'fd00:1::2']);
  t.equal(n.read('10.1.0.2'), 'ctr1\r\neth0');
  t.equal(n.read('last_reserved_ip.1'), 'fd00:1::2');
});

t.test('round-robin: a released address is not handed out again until the set wraps', async (t) => {
  const n = network(t, { ranges: v4 });
  const got: string[] = [];
  for (const id of ['a', 'b']) got.push((await n.add({ containerId: id })).ips?.[0]?.address ?? '');
  await n.del({ containerId: 'a' });
  for (const id of ['c', 'd', 'e', 'f']) got.push((await n.add({ containerId: id })).ips?.[0]?.address ?? '');
  t.same(got, ['10.1.0.2/29', '10.1.0.3/29', '10.1.0.4/29', '10.1.0.5/29', '10.1.0.6/29', '10.1.0.2/29'], '.2 comes back only after .6');
  await t.rejects(n.add({ containerId: 'g' }), {
    message: 'failed to allocate for range 0: no IP addresses available in range set: 10.1.0.1-10.1.0.6',
  });
});

t.test('a second ADD of the same attachment is refused and keeps the first address', async (t) => {
  const n = network(t, { ranges: v4 });
  await n.add();
  await t.rejects(n.add(), { message: 'failed to allocate for range 0: 10.1.0.2 has been allocated to ctr1, duplicate allocation is not allowed' });
  t.same(n.files(), ['10.1.0.2']);
  await t.resolves(n.add({ ifname: 'eth1' }), 'another interface of the same container is another attachment');
});

t.test('requested addresses', async (t) => {
  const n = network(t, { ranges: dual });
  const r = await n.add({ args: 'IP=10.1.0.5' }, { runtimeConfig: { ips: ['fd00:1::5/125'] } });
  t.same(
    r.ips?.map((i) => i.address),
    ['10.1.0.5/29', 'fd00:1::5/125'],
    'one per set, from CNI_ARGS and runtimeConfig together',
  );
  await t.rejects(n.add({ containerId: 'c2', args: 'IP=10.1.0.1' }), { message: "failed to allocate for range 0: requested ip 10.1.0.1 is subnet's gateway" });
  await t.rejects(n.add({ containerId: 'c2' }, { args: { cni: { ips: ['10.1.0.5'] } } }), {
    message: 'failed to allocate for range 0: requested IP address 10.1.0.5 is not available in range set 10.1.0.1-10.1.0.6',
  });
  t.same(n.files(), ['10.1.0.5', 'fd00:1::5'], 'failed ADDs leave nothing behind');
  await t.rejects(n.add({ containerId: 'c3' }, { args: { cni: { ips: ['10.1.0.3', '10.1.0.4'] } } }), {
    message: 'failed to allocate all requested IPs: 10.1.0.4',
  });
  await t.rejects(n.add({ containerId: 'c3' }, { args: { cni: { ips: ['192.0.2.9'] } } }), { message: 'failed to allocate all requested IPs: 192.0.2.9' });
  t.same(n.files(), ['10.1.0.5', 'fd00:1::5'], 'and what they took was released');
});

t.test('a failure in a later range set releases what earlier sets gave', async (t) => {
  const n = network(t, { ranges: [[{ subnet: '10.1.0.0/29' }], [{ subnet: 'fd00:1::/125', rangeStart: 'fd00:1::2', rangeEnd: 'fd00:1::2' }]] });
  await n.add({ containerId: 'a' });
  await t.rejects(n.add({ containerId: 'b' }), { message: 'failed to allocate for range 1: no IP addresses available in range set: fd00:1::2-fd00:1::2' });
  t.same(n.files(), ['10.1.0.2', 'fd00:1::2']);
});

t.test('a failed ADD leaves every file as it was, the round-robin markers included', async (t) => {
  const n = network(t, { ranges: dual });
  await n.add({ containerId: 'a' });
  const state = () =>
    Object.fromEntries(
      readdirSync(n.dir)
        .sort()
        .map((f) => [f, n.read(f)]),
    );
  const before = state();
  t.same(before['last_reserved_ip.0'], '10.1.0.2');
  // Set 0 and set 1 both hand out an address before the outside one is found unplaced.
  await t.rejects(n.add({ containerId: 'b' }, { args: { cni: { ips: ['192.0.2.9'] } } }), { message: 'failed to allocate all requested IPs: 192.0.2.9' });
  t.same(state(), before, 'requested IP outside every range: no marker moved');
  await t.rejects(n.add({ containerId: 'b', args: 'IP=fd00:1::1' }), { message: "failed to allocate for range 1: requested ip fd00:1::1 is subnet's gateway" });
  t.same(state(), before, 'a failure in set 1: set 0 marker not moved');
  t.same(
    (await n.add({ containerId: 'b' })).ips?.map((i) => i.address),
    ['10.1.0.3/29', 'fd00:1::3/125'],
    'the next ADD continues from the markers',
  );
});

t.test('DEL releases the attachment, again and again; CHECK finds it until then', async (t) => {
  const n = network(t, { ranges: dual });
  await n.add({ containerId: 'a' });
  await n.add({ containerId: 'b' });
  await t.resolves(n.check({ containerId: 'a' }));
  await n.del({ containerId: 'a' });
  t.same(n.files(), ['10.1.0.3', 'fd00:1::3']);
  await t.resolves(n.del({ containerId: 'a' }), 'a second DEL succeeds');
  await t.resolves(n.del({ containerId: 'never-added' }));
  await t.rejects(n.check({ containerId: 'a' }), { message: 'host-local: Failed to find address added by container a' });
});

t.test('files of old versions (container id only) are found and released', async (t) => {
  const one = network(t, { ranges: v4 });
  await one.add({ containerId: 'new' });
  writeFileSync(join(one.dir, '10.1.0.5'), 'old');
  writeFileSync(join(one.dir, '10.1.0.6'), 'new');
  await t.resolves(one.check({ containerId: 'old', ifname: 'whatever' }), 'CHECK finds an old-format file');
  await one.del({ containerId: 'old', ifname: 'eth0' });
  t.same(one.files(), ['10.1.0.2', '10.1.0.6']);
  // With one range set, an old-format file stays while a current one matched.
  await one.del({ containerId: 'new', ifname: 'eth0' });
  t.same(one.files(), ['10.1.0.6']);
  await one.del({ containerId: 'new', ifname: 'eth0' });
  t.same(one.files(), [], 'the next DEL finds no current file and releases the old one');

  // With two or more sets the reference's second pass always releases old-format files.
  const two = network(t, { ranges: dual });
  await two.add({ containerId: 'c' });
  writeFileSync(join(two.dir, '10.1.0.6'), 'c');
  await two.del({ containerId: 'c' });
  t.same(two.files(), []);
});

t.test('ADD fails cleanly for an unreadable resolvConf', async (t) => {
  const n = network(t, { ranges: v4, resolvConf: '/nonexistent/resolv.conf' });
  await t.rejects(n.add(), { message: 'open /nonexistent/resolv.conf: no such file or directory' });
  t.same(n.files(), []);
});
