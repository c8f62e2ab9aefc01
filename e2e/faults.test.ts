// The fault classes of issue 8, each through the built executables in throwaway netns:
// every one of them once hung, changed the node on a bad config, or left state behind.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { makeNetns } from './helpers/netns.ts';
import { nodeVeths, podLinks } from './helpers/node-state.ts';
import { BASE_ENV, DIST_BIN, tempDir } from './helpers/plugins.ts';
import { ipJson, needsRoot, run } from './helpers/sh.ts';
import { timedExec } from './helpers/timed-exec.ts';

const env = (command: string, netns: string, o: { containerId?: string; ifname?: string; args?: string } = {}) => ({
  ...BASE_ENV,
  CNI_COMMAND: command,
  CNI_CONTAINERID: o.containerId ?? 'fault-ctr',
  CNI_NETNS: netns,
  CNI_IFNAME: o.ifname ?? 'eth0',
  CNI_PATH: DIST_BIN,
  ...(o.args !== undefined && { CNI_ARGS: o.args }),
});

// (1) Node's recursive mkdir spins on ENOENT from a parent that exists (/proc): the plugin
// never returned. Now: at once, a CNI error naming the directory; bridge unwinds its veth.
t.test('uncreatable dataDir: host-local and bridge fail at once, nothing left', { skip: needsRoot }, async (t) => {
  const [node, pod] = await Promise.all([makeNetns(t, 'node'), makeNetns(t, 'pod')]);
  const ipam = { type: 'host-local', dataDir: '/proc/cnits-no-such-dir', ranges: [[{ subnet: '10.77.0.0/24' }]] };
  const hl = await timedExec(DIST_BIN, 'host-local', env('ADD', pod.path), JSON.stringify({ cniVersion: '1.0.0', name: 'dd', type: 'host-local', ipam }), {
    nodeNetns: node.name,
    timeoutMs: 10_000,
  });
  t.notOk(hl.timedOut, `host-local returns (took ${hl.ms.toFixed(0)} ms)`);
  t.equal(hl.code, 1);
  t.match(hl.json, { code: 999, msg: 'mkdir /proc/cnits-no-such-dir: no such file or directory' }, 'names the directory');

  const conf = { cniVersion: '1.0.0', name: 'dd', type: 'bridge', bridge: 'cnits-dd0', isGateway: true, ipam };
  const br = await timedExec(DIST_BIN, 'bridge', env('ADD', pod.path), JSON.stringify(conf), { nodeNetns: node.name, timeoutMs: 10_000 });
  t.notOk(br.timedOut, `bridge returns (took ${br.ms.toFixed(0)} ms)`);
  t.equal(br.code, 1);
  t.match(br.json, { code: 999, msg: /mkdir \/proc\/cnits-no-such-dir: no such file or directory/ });
  t.same(await nodeVeths(node.name), [], 'no host veth left in the node');
  t.same(await podLinks(pod.name), [], 'no interface left in the pod');
});
