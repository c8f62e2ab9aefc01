// Parallel ADDs for different pods must not lose each other's rules: each ADD reads the table,
// plans and writes, and (iptables) declaring a chain in iptables-restore input empties it, so
// two ADDs that both found the chain missing would wipe each other. The netfilter lock
// serialises them. Pods need no interfaces here: the firewall reads prevResult only.
import t, { type Test } from 'tap';
import { firewallStateOf, fwConf, FW_BACKENDS, runFirewall, type FwBackend, type FwRun } from '../helpers/firewall.ts';
import type { BridgeResult } from '../helpers/bridge-net.ts';
import { DIST_BIN } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

const skip = needsRoot;
const PODS = 8;

const prevOf = (i: number): BridgeResult => ({
  cniVersion: '0.4.0',
  interfaces: [{ name: 'cni0' }, { name: `veth${i}` }, { name: 'eth0', sandbox: '/run/netns/x' }],
  ips: [{ address: `10.244.0.${10 + i}/24`, gateway: '10.244.0.1', interface: 2 }],
});

async function parallel(t: Test, backend: FwBackend): Promise<void> {
  const { node } = await makeTopology(t);
  const pod = await makePod(t);
  const runs = Array.from({ length: PODS }, (_, i): [FwRun, BridgeResult] => [
    { node: node.name, id: `par-${i}`, netns: pod.path, conf: fwConf(backend, { ingressPolicy: 'same-bridge' }) },
    prevOf(i),
  ]);
  const ips = runs.map(([, p]) => p.ips[0]!.address.split('/')[0]!);
  const adds = await Promise.all(runs.map(([r, p]) => runFirewall(DIST_BIN, 'ADD', r, p)));
  t.same(
    adds.map((a) => a.code),
    runs.map(() => 0),
    'every ADD succeeds',
  );
  const perPod = backend === 'iptables' ? 2 : 1;
  t.equal((await firewallStateOf(node.name, ips)).length, PODS * perPod, `all ${PODS} pods' rules are there`);
  const checks = await Promise.all(runs.map(([r, p]) => runFirewall(DIST_BIN, 'CHECK', r, p)));
  t.same(
    checks.map((c) => c.code),
    runs.map(() => 0),
    'every CHECK passes',
  );
  if (backend === 'nftables') {
    // GC (spec 1.1.0) keeps the listed attachments' elements and deletes the others
    const [r0] = runs[0]!;
    const keep = runs.slice(0, PODS / 2).map(([r]) => ({ containerID: r.id, ifname: 'eth0' }));
    const gc = await runFirewall(DIST_BIN, 'GC', { ...r0, conf: { ...r0.conf, cniVersion: '1.1.0', 'cni.dev/valid-attachments': keep } });
    t.equal(gc.code, 0, `GC succeeds ${gc.stdout}`);
    t.same(
      await firewallStateOf(node.name, ips),
      ips.slice(0, PODS / 2).map((ip) => `nft element ${ip}`),
      'GC left exactly the listed attachments',
    );
  }
  const dels = await Promise.all(runs.map(([r, p]) => runFirewall(DIST_BIN, 'DEL', r, p)));
  t.same(
    dels.map((d) => d.code),
    runs.map(() => 0),
    'every DEL succeeds',
  );
  t.same(await firewallStateOf(node.name, ips), [], 'nothing is left');
}

for (const backend of FW_BACKENDS) t.test(`${backend}: ${PODS} ADDs at once, then ${PODS} DELs`, { skip }, (t) => parallel(t, backend));
