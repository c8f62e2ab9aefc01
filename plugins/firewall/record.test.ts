import t from 'tap';
import { podTarget } from '../../lib/linux/netfilter/firewall/fixtures/firewall-target.ts';
import { attachmentOfName, decodeRecord, encodeRecord, mergeEntries, planDelTeardowns, planGcTeardowns, recordPath, type FirewallRecord } from './record.ts';

const target = podTarget();
const v4 = (ip: string) => ({ family: 4 as const, ip });
const record = (o: Partial<FirewallRecord> = {}): FirewallRecord => ({
  network: 'podnet',
  containerId: 'c1',
  ifname: 'eth0',
  entries: [{ backend: 'iptables', addrs: target.addrs }],
  ...o,
});

t.test('one file per attachment: ids cannot hold "@", so no two attachments share a name', async (t) => {
  t.equal(recordPath('/run/cni/firewall', target), '/run/cni/firewall/podnet/c1@eth0.json');
  t.same(attachmentOfName('c1@eth0.json', false), { containerId: 'c1', ifname: 'eth0' });
  t.same(attachmentOfName('c1@e@x.json.tmp', true), { containerId: 'c1', ifname: 'e@x' }, 'a left-over write; "@" may be in an ifname');
  for (const name of ['c1@eth0.json.tmp', '@eth0.json', 'c1@.json', 'c1.json']) t.equal(attachmentOfName(name, false), undefined, name);
  t.not(recordPath('/d', { network: 'n', containerId: 'a_b', ifname: 'c' }), recordPath('/d', { network: 'n', containerId: 'a', ifname: 'b_c' }));
});

t.test('a record reads back as written; anything else is no record', async (t) => {
  const r = record({ entries: [{ backend: 'firewalld', zone: 'trusted', addrs: target.addrs }] });
  t.same(decodeRecord(encodeRecord(r)), r);
  t.same(decodeRecord('{"network":"n","containerId":"c","ifname":"e","entries":[{"backend":"iptables","addrs":["FD00::0:2"]}]}')?.entries, [
    { backend: 'iptables', addrs: [{ family: 6, ip: 'fd00::2' }] },
  ]);
  for (const junk of ['', 'null', '[]', '{"network":"n","containerId":"c","ifname":"e"}']) t.equal(decodeRecord(junk), undefined, junk);
  const bad = (entry: unknown) => JSON.stringify({ network: 'n', containerId: 'c', ifname: 'e', entries: [entry] });
  t.equal(decodeRecord(bad({ backend: 'pf', addrs: [] })), undefined, 'an unknown backend');
  t.equal(decodeRecord(bad({ backend: 'iptables', addrs: ['10.0.0.1; rm'] })), undefined, 'no address');
  t.equal(decodeRecord(bad({ backend: 'firewalld', zone: 1, addrs: [] })), undefined, 'a zone that is no string');
});

t.test('an ADD again joins its addresses to what the record lists, per backend and zone', async (t) => {
  const first = [{ backend: 'iptables' as const, addrs: [v4('10.0.0.1')] }];
  t.same(mergeEntries(first, { backend: 'iptables', addrs: [v4('10.0.0.2'), v4('10.0.0.1')] }), [
    { backend: 'iptables', addrs: [v4('10.0.0.1'), v4('10.0.0.2')] },
  ]);
  t.same(mergeEntries(first, { backend: 'nftables', addrs: [v4('10.0.0.1')] }).length, 2, 'another backend: an entry of its own');
  const fwd = [{ backend: 'firewalld' as const, zone: 'trusted', addrs: [v4('10.0.0.1')] }];
  t.same(mergeEntries(fwd, { backend: 'firewalld', zone: 'public', addrs: [v4('10.0.0.1')] }).length, 2, 'another zone: an entry of its own');
});

t.test("DEL removes prevResult's addresses and the record's, one teardown per backend", async (t) => {
  t.same(planDelTeardowns({ ...target, addrs: [] }, 'iptables', record()), [{ backend: 'iptables', target }], 'without prevResult: the record');
  t.same(planDelTeardowns(target, 'iptables', undefined), [{ backend: 'iptables', target }], 'without a record: prevResult, as before records');
  t.same(
    planDelTeardowns({ ...target, addrs: [] }, 'nftables', undefined),
    [{ backend: 'nftables', target: { ...target, addrs: [] } }],
    'neither: the config backend still runs (nftables finds elements by comment)',
  );
  const both = planDelTeardowns({ ...target, addrs: [v4('10.0.0.9')] }, 'iptables', record());
  t.same(
    both.map((s) => s.target.addrs.map((a) => a.ip)),
    [['10.0.0.9', '10.88.0.2', 'fd00::2']],
    'both, joined',
  );
  const other = planDelTeardowns(target, 'nftables', record());
  t.same(
    other.map((s) => s.backend),
    ['nftables', 'iptables'],
    'a record of another backend: that backend too',
  );
  const zoned = planDelTeardowns({ ...target, addrs: [] }, 'firewalld', record({ entries: [{ backend: 'firewalld', zone: 'public', addrs: target.addrs }] }));
  t.same(
    zoned.map((s) => [s.backend, s.target.zone, s.target.addrs.length]),
    [
      ['firewalld', 'trusted', 0],
      ['firewalld', 'public', 2],
    ],
    'firewalld: the zone the record names',
  );
});

t.test('GC of a gone record keeps the iptables and firewalld addresses a staying attachment holds', async (t) => {
  const gone = record({
    containerId: 'old',
    entries: [
      { backend: 'iptables', addrs: [v4('10.0.0.1'), v4('10.0.0.2')] },
      { backend: 'nftables', addrs: [v4('10.0.0.1')] },
    ],
  });
  const stays = [record({ containerId: 'new', network: 'othernet', entries: [{ backend: 'iptables', addrs: [v4('10.0.0.1')] }] })];
  const steps = planGcTeardowns(podTarget({ containerId: 'x', addrs: [] }), gone, stays);
  t.same(
    steps.map((s) => [s.backend, s.target.containerId, s.target.addrs.map((a) => a.ip)]),
    [
      ['iptables', 'old', ['10.0.0.2']],
      ['nftables', 'old', ['10.0.0.1']],
    ],
    "iptables: 10.0.0.1 stays (another network's attachment holds it); nftables elements carry their owner, so they go by key",
  );
});
