// bridge with a third-party IPAM plugin that prints a result of an older spec version than the
// config's. libcni reads a delegate's output in the result's own version and the Go bridge
// converts it (pkg/invoke/exec.go ExecPluginWithResult, current.NewResultFromResult), so such
// an IPAM works with the reference; it must with ours. The Go bridge is the oracle.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { attachment } from '../helpers/conflist.ts';
import { makeNetns } from '../helpers/netns.ts';
import { veths } from '../helpers/node-state.ts';
import { DIST_BIN, GO_BIN, tempDir } from '../helpers/plugins.ts';
import { ipJson, needsRoot } from '../../test-support/sh.ts';

// A 0.4.0 result whatever the config says (`ips[].version`, `dns: {}` as types040 prints them).
const RESULT_040 = { cniVersion: '0.4.0', ips: [{ version: '4', address: '10.252.0.5/24', gateway: '10.252.0.1' }], routes: [{ dst: '0.0.0.0/0' }], dns: {} };

/** A directory (root's, from mkdtemp, mode 0700) holding `old-ipam`, a shell script: ADD prints RESULT_040, other verbs nothing. */
function fakeIpamDir(t: Test): string {
  const dir = tempDir(t, 'cnits-fakeipam-');
  const file = join(dir, 'old-ipam');
  writeFileSync(file, `#!/bin/sh\ncat >/dev/null\nif [ "$CNI_COMMAND" = ADD ]; then printf '%s' '${JSON.stringify(RESULT_040)}'; fi\nexit 0\n`);
  chmodSync(file, 0o755);
  return dir;
}

const conflist = (bridge: string) => ({
  cniVersion: '1.0.0',
  name: 'oldipam',
  plugins: [{ type: 'bridge', bridge, isGateway: true, ipam: { type: 'old-ipam' } }],
});

for (const [impl, bin, bridge] of [
  ['ours', DIST_BIN, 'cni-oldipam'],
  ['Go v1.1.1', GO_BIN, 'cni-oldipamgo'],
] as const) {
  t.test(`[${impl}] a 1.0.0 bridge whose IPAM prints a 0.4.0 result: ADD converts it, CHECK and DEL pass`, { skip: needsRoot }, async (t) => {
    const node = await makeNetns(t, 'node');
    const pod = await makeNetns(t, 'pod');
    const a = attachment(
      conflist(bridge),
      { containerId: 'oldipam-a', netns: pod.path, ifname: 'eth0' },
      { nodeNetns: node.name, cniPath: [bin, fakeIpamDir(t)] },
    );
    const r = await a.add();
    t.equal(r.cniVersion, '1.0.0', 'the result is in the config version');
    t.same(r.ips, [{ address: '10.252.0.5/24', gateway: '10.252.0.1', interface: 2 }], "the IPAM's address, converted (no `version`)");
    t.same(r.routes, [{ dst: '0.0.0.0/0' }]);
    const addrs = await ipJson<{ addr_info: { family: string; local: string; prefixlen: number }[] }[]>(pod.name, ['addr', 'show', 'dev', 'eth0']);
    t.same(
      addrs[0]?.addr_info.filter((i) => i.family === 'inet').map((i) => `${i.local}/${i.prefixlen}`),
      ['10.252.0.5/24'],
      'the pod has the address',
    );
    await t.resolves(a.check(), 'CHECK');
    await a.del();
    t.same(await veths(node.name), [], 'DEL removed the veth');
  });
}
