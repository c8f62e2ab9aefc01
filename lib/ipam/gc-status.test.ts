import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parseAddr, parseSubnet, type Addr } from './addr.ts';
import { planGc } from './gc.ts';
import { cmdAdd, cmdGc, cmdStatus } from './host-local.ts';
import { canonicalizeRangeSet } from './range-set.ts';
import { capacityOf, exhaustedSets } from './status.ts';
import type { Allocation } from './store.ts';
import { makeRequest, tempDir } from './test-request.ts';

const ip = (s: string): Addr => parseAddr(s) as Addr;
const alloc = (name: string, key: string): Allocation => ({ name, ip: ip(name), key });

t.test('GC selection: attachments not listed go; old-format files stay while their container is listed', async (t) => {
  const all = [
    alloc('10.0.0.2', 'a\r\neth0'),
    alloc('10.0.0.3', 'a\r\neth1'),
    alloc('10.0.0.4', 'b\r\neth0'),
    alloc('10.0.0.5', 'old-a'),
    alloc('10.0.0.6', 'old-gone'),
    alloc('10.0.0.7', ''),
  ];
  const valid = [
    { containerID: 'a', ifname: 'eth0' },
    { containerID: 'old-a', ifname: 'eth3' },
  ];
  t.same(
    planGc(all, valid).map((a) => a.name),
    ['10.0.0.3', '10.0.0.4', '10.0.0.6', '10.0.0.7'],
  );
  t.same(planGc(all, []).length, all.length, 'an empty list releases everything');
});

function network(t: Test, ranges: unknown, opts: Record<string, unknown> = {}) {
  const dataDir = tempDir(t);
  const config = { cniVersion: '1.1.0', name: 'net1', ipam: { type: 'host-local', dataDir, ranges, ...opts } };
  const dir = join(dataDir, 'net1');
  return {
    dir,
    config,
    add: (id: string) => cmdAdd(makeRequest(config, { containerId: id })),
    gc: (extra: Record<string, unknown>) => cmdGc(makeRequest({ ...config, ...extra }, { command: 'GC' })),
    status: () => cmdStatus(makeRequest(config, { command: 'STATUS' })),
    files: () =>
      readdirSync(dir)
        .filter((f) => parseAddr(f) !== undefined)
        .sort(),
  };
}

t.test('GC through the plugin code', async (t) => {
  const n = network(t, [[{ subnet: '10.0.0.0/24' }]]);
  for (const id of ['a', 'b', 'c', 'd']) await n.add(id);
  writeFileSync(join(n.dir, '10.0.0.99'), 'legacy-b');
  writeFileSync(join(n.dir, '192.0.2.1'), 'z\r\neth0'); // outside today's ranges: still this network's
  await n.gc({});
  t.equal(n.files().length, 6, 'no valid-attachments key: the runtime gave no list, nothing is released');
  await n.gc({
    'cni.dev/valid-attachments': [
      { containerID: 'a', ifname: 'eth0' },
      { containerID: 'legacy-b', ifname: 'eth0' },
    ],
  });
  t.same(n.files(), ['10.0.0.2', '10.0.0.99']);
  await n.gc({ 'cni.dev/attachments': [{ containerID: 'a', ifname: 'eth0' }] });
  t.same(n.files(), ['10.0.0.2'], 'the key of the 1.1.0 spec text is read too');
  await t.rejects(n.gc({ 'cni.dev/valid-attachments': [{ containerID: 5 }] }), { code: 7 });
  const nothing = network(t, [[{ subnet: '10.0.0.0/24' }]]);
  await t.resolves(nothing.gc({ 'cni.dev/valid-attachments': [] }), 'GC of a network never used');
});

const set = (subnet: string, o: { rangeStart?: string; rangeEnd?: string; gateway?: string } = {}) =>
  canonicalizeRangeSet(
    [
      {
        subnet: parseSubnet(subnet),
        ...(o.rangeStart && { rangeStart: ip(o.rangeStart) }),
        ...(o.rangeEnd && { rangeEnd: ip(o.rangeEnd) }),
        ...(o.gateway && { gateway: ip(o.gateway) }),
      },
    ],
    's',
  );

t.test('capacity: every address of the ranges but the gateway', async (t) => {
  t.equal(capacityOf(set('10.0.0.0/24')), 253n, '.1 to .254 without the gateway .1');
  t.equal(capacityOf(set('10.0.0.0/24', { rangeStart: '10.0.0.10', rangeEnd: '10.0.0.19' })), 10n, 'gateway outside the range');
  t.equal(capacityOf(set('fd00::/64')), (1n << 64n) - 2n, 'counted, not walked');
  const s = set('10.0.0.0/30');
  t.same(exhaustedSets([s], [ip('10.0.0.2')]), [0]);
  t.same(exhaustedSets([s], [ip('10.0.0.1'), ip('10.0.0.3')]), [], 'the gateway and an address outside the range do not count');
});

t.test('STATUS: a full range set is not a failure by default (the node must stay Ready)', async (t) => {
  const n = network(t, [[{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.11' }]]);
  await n.add('a');
  await n.add('b');
  await t.rejects(n.add('c'), { message: /no IP addresses available in range set: 10.0.0.10-10.0.0.11/ }, 'the range is full');
  await t.resolves(n.status(), 'STATUS still succeeds');
  const off = network(t, [[{ subnet: '10.0.0.0/30' }]], { failStatusWhenFull: false });
  await off.add('a');
  await t.rejects(off.add('b'), { message: /no IP addresses available/ }, 'one address, taken');
  await t.resolves(off.status(), 'failStatusWhenFull: false is the default');
  const bad = network(t, [[{ subnet: '10.0.0.0/30' }]], { failStatusWhenFull: 'yes' });
  await t.rejects(bad.status(), { code: 7 }, 'a config error is still one');
});

t.test('STATUS with ipam.failStatusWhenFull: code 50 naming the set once a set is full', async (t) => {
  const optIn = { failStatusWhenFull: true };
  const n = network(t, [[{ subnet: 'fd00::/64' }], [{ subnet: '10.0.0.0/24', rangeStart: '10.0.0.10', rangeEnd: '10.0.0.11' }]], optIn);
  await t.resolves(n.status(), 'never used: available');
  await n.add('a');
  await t.resolves(n.status(), 'one address left');
  await n.add('b');
  await t.rejects(n.status(), { code: 50, msg: 'no IP addresses available in range set 1: 10.0.0.10-10.0.0.11' });
  await t.rejects(n.add('c'), { message: /no IP addresses available in range set: 10.0.0.10-10.0.0.11/ }, 'and ADD indeed fails');

  const both = network(t, [[{ subnet: '10.0.0.0/30' }], [{ subnet: 'fd00::/126', gateway: 'fd00::3' }]], { FailStatusWhenFull: true });
  mkdirSync(both.dir, { recursive: true });
  for (const f of ['10.0.0.2', 'fd00::1', 'fd00::2']) writeFileSync(join(both.dir, f), 'x\r\neth0');
  await t.rejects(both.status(), {
    code: 50,
    msg: 'no IP addresses available in range set 0: 10.0.0.1-10.0.0.2',
    details: 'exhausted: range set 0: 10.0.0.1-10.0.0.2; range set 1: fd00::1-fd00::3',
  });
});
