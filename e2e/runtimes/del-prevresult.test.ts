// A DEL whose prevResult cannot be read still tears everything down. A runtime DELs the chain
// in reverse order and stops at the first failure, so one plugin refusing a field it does not
// need would leave every plugin before it in place. (The reference's portmap and bandwidth fail
// such a DEL; bridge, host-local and loopback never read prevResult on DEL.) A runtime whose ADD
// was interrupted by a later plugin of the chain has no cached result at all: firewall's DEL
// then still removes what its ADD added (the reference leaves the iptables rules).
import t, { type Test } from 'tap';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeNetns } from '../helpers/netns.ts';
import { ipFiles, leftovers, masqRulesOf } from '../helpers/node-state.ts';
import { execPlugin, tempDir } from '../helpers/plugins.ts';
import { ipJson, needsRoot, nsRun } from '../../test-support/sh.ts';
import { firewallStateOf, FW_BACKENDS, type FwBackend } from '../helpers/firewall.ts';

const GARBAGE = { ips: 'garbage' };

t.test('bridge (ipMasq) + portmap: DEL of each with prevResult {"ips": "garbage"} succeeds and leaves nothing', { skip: needsRoot }, async (t) => {
  const node = await makeNetns(t, 'node');
  const pod = await makeNetns(t, 'pod');
  const dataDir = tempDir(t, 'cnits-delprev-');
  const ids = { containerId: 'delprev-a', netns: pod.path, ifname: 'eth0', nodeNetns: node.name };
  const base = { cniVersion: '1.0.0', name: 'delprev' };
  const bridge = {
    ...base,
    type: 'bridge',
    bridge: 'cni-delprev',
    isGateway: true,
    ipMasq: true,
    ipam: { type: 'host-local', subnet: '10.253.0.0/24', dataDir },
  };
  const portmap = { ...base, type: 'portmap', backend: 'iptables', runtimeConfig: { portMappings: [{ hostPort: 18090, containerPort: 80, protocol: 'tcp' }] } };
  const add = await execPlugin('bridge', { command: 'ADD', ...ids }, bridge);
  t.equal(add.code, 0, add.stdout);
  const pm = await execPlugin('portmap', { command: 'ADD', ...ids }, { ...portmap, prevResult: add.json });
  t.equal(pm.code, 0, pm.stdout);
  t.match(await nsRun(node.name, 'iptables-save', ['-t', 'nat']), /--dport 18090 /, 'the mapping is there');
  const addrs = (add.json?.ips ?? []).map((ip: { address: string }) => ip.address);
  t.not((await masqRulesOf(node.name, ids.containerId, addrs)).length, 0, "the pod's masquerade rules are there");

  const pmDel = await execPlugin('portmap', { command: 'DEL', ...ids }, { ...portmap, prevResult: GARBAGE });
  t.equal(pmDel.code, 0, `portmap DEL: ${pmDel.stdout}`);
  t.match(pmDel.stderr, /DEL goes on without prevResult/, 'says it went on without prevResult');
  t.notMatch(await nsRun(node.name, 'iptables-save', ['-t', 'nat']), /18090/, 'portmap removed its rules');
  const brDel = await execPlugin('bridge', { command: 'DEL', ...ids }, { ...bridge, prevResult: GARBAGE });
  t.equal(brDel.code, 0, `bridge DEL: ${brDel.stdout}`);
  t.same(await masqRulesOf(node.name, ids.containerId, addrs), [], "the pod's masquerade rules are gone");
  // portmap's shared chains (CNI-HOSTPORT-*) stay, as with the reference.
  const { 'masquerade rules': _shared, ...left } = await leftovers({ node: node.name, pod: pod.name, dataDir, network: 'delprev' });
  t.same(left, {}, 'no veth, address or pod link left');
});

t.test('host-local: DEL with prevResult {"ips": "garbage"} releases the address', { skip: needsRoot }, async (t) => {
  const dataDir = tempDir(t, 'cnits-delprev-');
  const conf = { cniVersion: '1.0.0', name: 'delprev-hl', type: 'host-local-test', ipam: { type: 'host-local', subnet: '10.253.1.0/24', dataDir } };
  const ids = { containerId: 'delprev-b', netns: '/run/netns/cnits-none', ifname: 'eth0' };
  t.equal((await execPlugin('host-local', { command: 'ADD', ...ids }, conf)).code, 0);
  t.equal(ipFiles(dataDir, 'delprev-hl').length, 1);
  const del = await execPlugin('host-local', { command: 'DEL', ...ids }, { ...conf, prevResult: GARBAGE });
  t.equal(del.code, 0, del.stdout);
  t.same(ipFiles(dataDir, 'delprev-hl'), [], 'released');
});

t.test('loopback: DEL with prevResult {"ips": "garbage"} sets lo down', { skip: needsRoot }, async (t) => {
  const ns = await makeNetns(t, 'lo');
  const conf = { cniVersion: '1.0.0', name: 'delprev-lo', type: 'loopback' };
  const ids = { containerId: 'delprev-c', netns: ns.path, ifname: 'eth0' };
  t.equal((await execPlugin('loopback', { command: 'ADD', ...ids }, conf)).code, 0);
  const del = await execPlugin('loopback', { command: 'DEL', ...ids }, { ...conf, prevResult: GARBAGE });
  t.equal(del.code, 0, del.stdout);
  const [lo] = await ipJson<{ flags: string[] }[]>(ns.name, ['link', 'show', 'lo']);
  t.notOk(lo?.flags.includes('UP'), 'lo is down');
});

async function firewallInterrupted(t: Test, backend: FwBackend, prevResult: unknown): Promise<void> {
  const node = await makeNetns(t, 'node');
  const pod = await makeNetns(t, 'pod');
  const dataDir = tempDir(t, 'cnits-delprev-');
  const ids = { containerId: 'delprev-fw', netns: pod.path, ifname: 'eth0', nodeNetns: node.name };
  const base = { cniVersion: '1.0.0', name: 'delprev-fw' };
  const bridge = {
    ...base,
    type: 'bridge',
    bridge: 'cni-delprev',
    isGateway: true,
    ipam: { type: 'host-local', ranges: [[{ subnet: '10.253.2.0/24' }], [{ subnet: 'fd00:253:2::/64' }]], dataDir },
  };
  const firewall = { ...base, type: 'firewall', backend, dataDir: join(dataDir, 'firewall') };
  // podman's list is bridge, portmap, firewall, tuning: the ADD ends after firewall, as when tuning is killed.
  const add = await execPlugin('bridge', { command: 'ADD', ...ids }, bridge);
  t.equal(add.code, 0, `bridge ADD succeeds ${add.stderr}`);
  const fw = await execPlugin('firewall', { command: 'ADD', ...ids }, { ...firewall, prevResult: add.json });
  t.equal(fw.code, 0, `firewall ADD succeeds ${fw.stderr}`);
  const ips = (add.json?.ips ?? []).map((ip: { address: string }) => ip.address.split('/')[0] as string);
  t.equal(ips.length, 2, 'a dual-stack pod');
  t.not((await firewallStateOf(node.name, ips)).length, 0, "the pod's firewall rules are there");

  const del = { ...firewall, ...(prevResult !== undefined && { prevResult }) };
  const fwDel = await execPlugin('firewall', { command: 'DEL', ...ids }, del);
  t.equal(fwDel.code, 0, `firewall DEL: ${fwDel.stdout}`);
  t.same(await firewallStateOf(node.name, ips), [], "no firewall rule or element of the pod's addresses is left");
  t.equal((await execPlugin('firewall', { command: 'DEL', ...ids }, del)).code, 0, 'firewall DEL again succeeds');
  const brDel = await execPlugin('bridge', { command: 'DEL', ...ids }, bridge);
  t.equal(brDel.code, 0, `bridge DEL: ${brDel.stdout}`);
  t.same(await leftovers({ node: node.name, pod: pod.name, dataDir, network: 'delprev-fw' }), {}, 'no veth, address or pod link left');
  const records = join(dataDir, 'firewall', 'delprev-fw');
  t.same(existsSync(records) ? readdirSync(records) : [], [], "firewall's record of the pod is gone");
}

for (const backend of FW_BACKENDS) {
  t.test(`firewall (${backend}), after an ADD interrupted later in the chain: DEL without prevResult leaves nothing`, { skip: needsRoot }, (t) =>
    firewallInterrupted(t, backend, undefined),
  );
  t.test(`firewall (${backend}): DEL with prevResult {"ips": "garbage"} leaves nothing`, { skip: needsRoot }, (t) => firewallInterrupted(t, backend, GARBAGE));
}
