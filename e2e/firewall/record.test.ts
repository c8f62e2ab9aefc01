// firewall keeps a record of what each ADD added (plugins/firewall/record.ts, in its `dataDir`).
// GC removes, for attachments the runtime no longer lists, their rules and records, and keeps
// an address's iptables rules while a listed attachment still holds it (those rules name no
// owner). A record whose rules never came (ADD killed between the two) is no obstacle to DEL.
import t, { type Test } from 'tap';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BridgeResult } from '../helpers/bridge-net.ts';
import { firewallStateOf, fwConf, FW_BACKENDS, runFirewall, type FwBackend, type FwRun } from '../helpers/firewall.ts';
import { DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot, nsRun } from '../../test-support/sh.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

const skip = needsRoot;

/** A dual-stack prevResult with host part `i`. */
const prevOf = (i: number): BridgeResult => ({
  cniVersion: '1.1.0',
  interfaces: [{ name: 'cni0' }, { name: `veth${i}` }, { name: 'eth0', sandbox: '/run/netns/x' }],
  ips: [
    { address: `10.244.0.${i}/24`, gateway: '10.244.0.1', interface: 2 },
    { address: `fd00:244::${i.toString(16)}/64`, gateway: 'fd00:244::1', interface: 2 },
  ],
});
const ipsOf = (i: number): string[] => prevOf(i).ips.map((ip) => ip.address.split('/')[0]!);

async function fwNode(t: Test, backend: FwBackend): Promise<{ run: (id: string) => FwRun; node: string; records: () => string[] }> {
  const { node } = await makeTopology(t);
  const pod = await makePod(t);
  const dataDir = tempDir(t, 'cnits-fw-record-');
  const conf = fwConf(backend, { cniVersion: '1.1.0', dataDir });
  const records = (): string[] => {
    try {
      return readdirSync(join(dataDir, 'podnet')).sort();
    } catch {
      return [];
    }
  };
  return { run: (id) => ({ node: node.name, id, netns: pod.path, conf }), node: node.name, records };
}

const gcConf = (r: FwRun, valid: readonly string[]): FwRun => ({
  ...r,
  conf: { ...r.conf, 'cni.dev/valid-attachments': valid.map((containerID) => ({ containerID, ifname: 'eth0' })) },
});

async function ok(t: Test, what: string, p: Promise<{ code: number | null; stdout: string }>): Promise<void> {
  const r = await p;
  t.equal(r.code, 0, r.code === 0 ? what : `${what}: ${r.stdout}`);
}

async function gcOfGone(t: Test, backend: FwBackend): Promise<void> {
  const { run, node, records } = await fwNode(t, backend);
  // a and c have the same address (a's DEL never came, its address went to c); b another one
  const pods: [string, number][] = [
    ['rec-a', 5],
    ['rec-b', 6],
    ['rec-c', 5],
  ];
  for (const [id, i] of pods) await ok(t, `ADD ${id}`, runFirewall(DIST_BIN, 'ADD', run(id), prevOf(i)));
  t.same(records(), ['rec-a@eth0.json', 'rec-b@eth0.json', 'rec-c@eth0.json'], 'one record per attachment');

  await ok(t, 'GC with b and c valid', runFirewall(DIST_BIN, 'GC', gcConf(run(''), ['rec-b', 'rec-c'])));
  t.same(records(), ['rec-b@eth0.json', 'rec-c@eth0.json'], "the gone attachment's record is removed");
  for (const [id, i] of pods.slice(1)) await ok(t, `CHECK ${id} passes after GC`, runFirewall(DIST_BIN, 'CHECK', run(id), prevOf(i)));

  await ok(t, 'GC with b valid', runFirewall(DIST_BIN, 'GC', gcConf(run(''), ['rec-b'])));
  t.same(records(), ['rec-b@eth0.json'], "c's record is removed");
  t.same(await firewallStateOf(node, ipsOf(5)), [], "nothing of a's and c's address is left");
  await ok(t, 'CHECK rec-b passes', runFirewall(DIST_BIN, 'CHECK', run('rec-b'), prevOf(6)));

  await ok(t, 'GC with nothing valid', runFirewall(DIST_BIN, 'GC', gcConf(run(''), [])));
  t.same(records(), [], 'no record is left');
  t.same(await firewallStateOf(node, [...ipsOf(5), ...ipsOf(6)]), [], 'no rule or element of any pod is left');
}

/** ADD killed after its record and before its rules: as if the rules had never come. */
async function recordWithoutRules(t: Test): Promise<void> {
  const { run, node, records } = await fwNode(t, 'iptables');
  await ok(t, 'ADD', runFirewall(DIST_BIN, 'ADD', run('rec-k'), prevOf(7)));
  for (const [tool, ip] of [
    ['iptables', `${ipsOf(7)[0]}/32`],
    ['ip6tables', `${ipsOf(7)[1]}/128`],
  ] as const) {
    await nsRun(node, tool, ['-D', 'CNI-FORWARD', '-d', ip, '-m', 'conntrack', '--ctstate', 'RELATED,ESTABLISHED', '-j', 'ACCEPT']);
    await nsRun(node, tool, ['-D', 'CNI-FORWARD', '-s', ip, '-j', 'ACCEPT']);
  }
  t.same(await firewallStateOf(node, ipsOf(7)), [], 'control: the rules are gone, the record is not');
  t.same(records(), ['rec-k@eth0.json'], 'the record is there');
  await ok(t, 'DEL without prevResult succeeds', runFirewall(DIST_BIN, 'DEL', run('rec-k')));
  t.same(records(), [], 'and removes the record');
}

for (const backend of FW_BACKENDS) {
  t.test(`${backend}: GC removes the rules and records of gone attachments, not an address a listed one holds`, { skip }, (t) => gcOfGone(t, backend));
}
t.test('iptables: a record whose rules never came: DEL without prevResult succeeds and removes it', { skip }, recordWithoutRules);
