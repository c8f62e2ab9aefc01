// The pod's netns disappears in the middle of a chain ADD: bridge has made a veth, taken an
// address and added masquerade rules, then bandwidth finds no netns. Code 3 would tell the
// runtime it need not call DEL (spec 1.1.0, "Error"), and all of that would leak; any other
// code makes the runtime DEL the list, which must then clean everything.
import t from 'tap';
import { makeNetns, removeNetns } from '../helpers/netns.ts';
import { leftovers } from '../helpers/node-state.ts';
import { execPlugin, tempDir } from '../helpers/plugins.ts';
import { needsRoot, run } from '../../test-support/sh.ts';

const NETWORK = 'gone-net';

t.test('a netns gone after bridge: bandwidth ADD is not code 3, and DEL of the list cleans up', { skip: needsRoot }, async (t) => {
  const node = await makeNetns(t, 'gone-node');
  await run('ip', ['-n', node.name, 'link', 'set', 'lo', 'up']);
  const pod = await makeNetns(t, 'gone-pod');
  const dataDir = tempDir(t);
  const common = { cniVersion: '1.0.0', name: NETWORK };
  const bridge = {
    ...common,
    type: 'bridge',
    bridge: 'cnitsgone0',
    isGateway: true,
    ipMasq: true,
    ipam: { type: 'host-local', dataDir, ranges: [[{ subnet: '10.84.0.0/24' }]] },
  };
  const bandwidth = { ...common, type: 'bandwidth', runtimeConfig: { bandwidth: { ingressRate: 1_000_000, ingressBurst: 80_000 } } };
  const env = { containerId: 'gone-ctr', netns: pod.path, ifname: 'eth0', nodeNetns: node.name };

  const first = await execPlugin('bridge', { command: 'ADD', ...env }, bridge);
  t.equal(first.code, 0, first.stdout);
  t.not(await leftovers({ node: node.name, dataDir, network: NETWORK }), {}, 'bridge made its part');

  await removeNetns(pod.name);
  const second = await execPlugin('bandwidth', { command: 'ADD', ...env }, { ...bandwidth, prevResult: first.json });
  t.equal(second.code, 1, 'bandwidth ADD fails');
  t.match(second.json, { code: 999, msg: `failed to open netns "${pod.path}": failed to Statfs "${pod.path}": no such file or directory` });
  t.not(second.json?.code, 3, 'not "nothing to clean": the runtime goes on to DEL');

  // The runtime's DEL after a failed ADD: reverse order, no cached result to pass.
  for (const round of ['DEL', 'second DEL']) {
    for (const [plugin, conf] of [
      ['bandwidth', bandwidth],
      ['bridge', bridge],
    ] as const) {
      const del = await execPlugin(plugin, { command: 'DEL', ...env }, conf);
      t.equal(del.code, 0, `${round} ${plugin}: ${del.stdout}`);
    }
    // The host veth dies with the pod's netns, in the kernel's own time: not asserted here.
    const { ['veths in node']: _veths, ...left } = await leftovers({ node: node.name, dataDir, network: NETWORK });
    t.same(left, {}, `${round}: no address, no masquerade rule left`);
  }
});
