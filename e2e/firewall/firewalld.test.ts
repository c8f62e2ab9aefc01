// The firewalld backend on a node where no firewalld can be reached: every verb that needs it
// fails with a CNI error saying what is missing (never a silent success); STATUS says so with
// code 50; DEL succeeds, since firewalld's runtime sources die with it. The system bus is
// pointed at a socket that does not exist, so the test does not depend on the host's D-Bus.
import t from 'tap';
import { join } from 'node:path';
import { fwConf, runFirewall, type FwRun } from '../helpers/firewall.ts';
import type { BridgeResult } from '../helpers/bridge-net.ts';
import { DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

const prev: BridgeResult = {
  cniVersion: '1.1.0',
  interfaces: [{ name: 'cni0' }, { name: 'eth0', sandbox: '/run/netns/x' }],
  ips: [{ address: '10.244.0.5/24', interface: 1 }],
};

t.test('firewalld backend without a reachable firewalld: a clear error, not silence', { skip: needsRoot }, async (t) => {
  const { node } = await makeTopology(t);
  const pod = await makePod(t);
  const socket = join(tempDir(t), 'system_bus_socket');
  const r: FwRun = {
    node: node.name,
    id: 'fwd-1',
    netns: pod.path,
    conf: { ...fwConf('iptables'), backend: 'firewalld', cniVersion: '1.1.0' },
    env: { DBUS_SYSTEM_BUS_ADDRESS: `unix:path=${socket}` },
  };
  const want = `firewalld backend unavailable: the D-Bus system bus is not reachable (no socket at ${socket})`;
  for (const verb of ['ADD', 'CHECK'] as const) {
    const out = await runFirewall(DIST_BIN, verb, r, prev);
    t.not(out.code, 0, `${verb} fails`);
    t.equal(out.json?.msg, want, `${verb} names what is missing`);
  }
  const status = await runFirewall(DIST_BIN, 'STATUS', r);
  t.same([status.json?.code, status.json?.msg], [50, want], 'STATUS: code 50, the same reason');
  t.equal((await runFirewall(DIST_BIN, 'DEL', r, prev)).code, 0, 'DEL succeeds: without firewalld there is nothing to remove');
});
