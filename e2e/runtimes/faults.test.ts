// The fault classes of issue 8, each through the built executables in throwaway netns:
// every one of them once hung, changed the node on a bad config, or left state behind.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { makeNetns } from '../helpers/netns.ts';
import { nodeVeths, podLinks } from '../helpers/node-state.ts';
import { BASE_ENV, DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { ipJson, needsRoot } from '../../test-support/sh.ts';
import { timedExec } from '../helpers/timed-exec.ts';

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
  const hl = await timedExec([DIST_BIN, 'host-local'], env('ADD', pod.path), JSON.stringify({ cniVersion: '1.0.0', name: 'dd', type: 'host-local', ipam }), {
    nodeNetns: node.name,
    timeoutMs: 10_000,
  });
  t.notOk(hl.timedOut, `host-local returns (took ${hl.ms.toFixed(0)} ms)`);
  t.equal(hl.code, 1);
  t.match(hl.json, { code: 999, msg: 'mkdir /proc/cnits-no-such-dir: no such file or directory' }, 'names the directory');

  const conf = { cniVersion: '1.0.0', name: 'dd', type: 'bridge', bridge: 'cnits-dd0', isGateway: true, ipam };
  const br = await timedExec([DIST_BIN, 'bridge'], env('ADD', pod.path), JSON.stringify(conf), { nodeNetns: node.name, timeoutMs: 10_000 });
  t.notOk(br.timedOut, `bridge returns (took ${br.ms.toFixed(0)} ms)`);
  t.equal(br.code, 1);
  t.match(br.json, { code: 999, msg: /mkdir \/proc\/cnits-no-such-dir: no such file or directory/ });
  t.same(await nodeVeths(node.name), [], 'no host veth left in the node');
  t.same(await podLinks(pod.name), [], 'no interface left in the pod');
});

// A valid config per plugin; `dataDir` is a fresh host-local dataDir.
function validConf(plugin: string, dataDir: string): Record<string, unknown> {
  const hostLocal = { type: 'host-local', dataDir, ranges: [[{ subnet: '10.78.0.0/24' }]] };
  switch (plugin) {
    case 'bridge':
      return { cniVersion: '1.0.0', name: 'ft', type: 'bridge', bridge: 'cnits-ft0', isGateway: true, ipam: hostLocal };
    case 'host-local':
      return { cniVersion: '1.0.0', name: 'ft', type: 'host-local', ipam: hostLocal };
    case 'static':
      return { cniVersion: '1.0.0', name: 'ft', type: 'static', ipam: { type: 'static', addresses: [{ address: '10.79.0.2/24' }] } };
    default:
      return { cniVersion: '1.0.0', name: 'ft', type: plugin };
  }
}

/** Everything the runs below could change: links and addresses in node and pod, files in the dataDir. */
async function snapshot(node: string, pod: string, dataDir: string): Promise<string> {
  const [n, p] = await Promise.all([ipJson(node, ['addr', 'show']), ipJson(pod, ['addr', 'show'])]);
  const files = (() => {
    try {
      return readdirSync(join(dataDir, 'ft')).map((f) => `${f}=${readFileSync(join(dataDir, 'ft', f), 'latin1')}`);
    } catch {
      return [];
    }
  })();
  return JSON.stringify({ n, p, files });
}

// (2) The shared fields (types.NetConf in the reference) with a wrong JSON type: code 7 naming
// the field, and nothing done. Before, loopback brought lo up and bridge made its bridge with
// `"type": 5` or `"capabilities": "x"`.
const WRONG: [string, unknown][] = [
  ['type', 5],
  ['capabilities', 'portMappings'],
  ['capabilities', { portMappings: 'yes' }],
  ['ipam', 'host-local'],
  ['dns', ['8.8.8.8']],
  ['dns', { nameservers: '8.8.8.8' }],
  ['args', 'K8S_POD_NAME=x'],
  ['runtimeConfig', []],
  ['prevResult', 'x'],
  ['cni.dev/valid-attachments', {}],
];

for (const plugin of ['loopback', 'bridge', 'host-local', 'static']) {
  t.test(`${plugin}: a shared field with a wrong JSON type is code 7 naming it, nothing changes`, { skip: needsRoot }, async (t) => {
    const [node, pod] = await Promise.all([makeNetns(t, 'node'), makeNetns(t, 'pod')]);
    const dataDir = tempDir(t);
    const before = await snapshot(node.name, pod.name, dataDir);
    for (const [field, value] of WRONG) {
      const base = validConf(plugin, dataDir);
      // A wrong `ipam` replaces the IPAM section; keep the rest valid.
      const conf = { ...base, [field]: value };
      const r = await timedExec([DIST_BIN, plugin], env('ADD', pod.path), JSON.stringify(conf), { nodeNetns: node.name });
      t.equal(r.code, 1, `${field}=${JSON.stringify(value)}: exit 1 (${r.stdout.trim()})`);
      const at = /^\w+$/.test(field) ? field : `["${field}"]`;
      t.match(r.json, { code: 7 }, `${field}: code 7`);
      t.ok(String(r.json?.details).startsWith(`${at}`), `${field}: details name the field (${r.json?.details})`);
    }
    t.equal(await snapshot(node.name, pod.name, dataDir), before, 'node, pod and dataDir unchanged');
  });
}

// (3) A name with a byte an interface name cannot hold: before, "cnits\0x" made a bridge
// "cnits" (C took the NUL as the end) and the ADD went on. Now code 7 naming the field, and
// no link in the node; CNI_IFNAME gets skel's code 4 for the same bytes.
t.test('bridge: names a Linux interface cannot have are refused before anything is made', { skip: needsRoot }, async (t) => {
  const [node, pod] = await Promise.all([makeNetns(t, 'node'), makeNetns(t, 'pod')]);
  const dataDir = tempDir(t);
  const before = await snapshot(node.name, pod.name, dataDir);
  for (const bad of ['cnits\u0000x', 'cnits/x', 'cnits:x', 'cnits x', 'cnits\u00e0', '.', '..', 'cnits-0123456789']) {
    const conf = { ...validConf('bridge', dataDir), bridge: bad };
    const r = await timedExec([DIST_BIN, 'bridge'], env('ADD', pod.path), JSON.stringify(conf), { nodeNetns: node.name });
    t.match(r.json, { code: 7, msg: /^invalid bridge name/, details: /^bridge: / }, `bridge ${JSON.stringify(bad)}: code 7 (${r.stdout.trim()})`);
  }
  for (const bad of ['eth\u00e0', 'eth\u2003']) {
    const r = await timedExec([DIST_BIN, 'bridge'], env('ADD', pod.path, { ifname: bad }), JSON.stringify(validConf('bridge', dataDir)), {
      nodeNetns: node.name,
    });
    t.match(r.json, { code: 4, msg: /interface name contains/ }, `CNI_IFNAME ${JSON.stringify(bad)}: code 4`);
  }
  t.equal(await snapshot(node.name, pod.name, dataDir), before, 'node, pod and dataDir unchanged');
});

// (5) Nesting: Go's decoder refuses more than 10,000 levels (code 6); up to that, no walk of
// ours may overflow the stack, wherever the deep value sits. A stack overflow would surface
// as a code-999 "Maximum call stack size exceeded" (or a crash without a JSON answer).
// JSON.stringify itself cannot write such a value, so the text is spliced in.
const DEEP = '__cnits_deep__';
const withDeep = (conf: Record<string, unknown>, levels: number): string =>
  JSON.stringify(conf).replace(JSON.stringify(DEEP), `${'['.repeat(levels)}${']'.repeat(levels)}`);
// [where, levels of objects above the value, how to put it there]
const PLACES: [string, number, (c: Record<string, unknown>, v: unknown) => Record<string, unknown>][] = [
  ['an unknown key', 1, (c, v) => ({ ...c, deep: v })],
  ['capabilities', 2, (c, v) => ({ ...c, capabilities: { x: v } })],
  ['ipam', 2, (c, v) => ({ ...c, ipam: { ...(c['ipam'] as object), deep: v } })],
  ['runtimeConfig', 2, (c, v) => ({ ...c, runtimeConfig: { deep: v } })],
  ['args', 3, (c, v) => ({ ...c, args: { cni: { deep: v } } })],
  ['prevResult', 2, (c, v) => ({ ...c, prevResult: { cniVersion: '1.0.0', deep: v } })],
  ['prevResult.interfaces', 2, (c, v) => ({ ...c, prevResult: { cniVersion: '1.0.0', interfaces: v } })],
  ['dns.nameservers', 2, (c, v) => ({ ...c, dns: { nameservers: v } })],
];

for (const plugin of ['loopback', 'bridge', 'host-local', 'static']) {
  t.test(`${plugin}: nesting at Go's limit is read without overflowing, beyond it is code 6`, { skip: needsRoot }, async (t) => {
    const [node, pod] = await Promise.all([makeNetns(t, 'node'), makeNetns(t, 'pod')]);
    const dataDir = tempDir(t);
    for (const [where, above, put] of PLACES) {
      const levels = 10_000 - above;
      for (const verb of ['CHECK', 'DEL']) {
        const r = await timedExec([DIST_BIN, plugin], env(verb, pod.path), withDeep(put(validConf(plugin, dataDir), DEEP), levels), { nodeNetns: node.name });
        t.notMatch(r.stdout + r.stderr, /Maximum call stack|RangeError|\n\s+at /, `${verb}, ${where} at 10,000 levels: no stack overflow`);
        t.ok(r.code === 0 || (r.code === 1 && typeof r.json?.code === 'number'), `${verb}, ${where}: a CNI answer (${r.stdout.trim().slice(0, 120)})`);
      }
      const over = await timedExec([DIST_BIN, plugin], env('ADD', pod.path), withDeep(put(validConf(plugin, dataDir), DEEP), levels + 1), {
        nodeNetns: node.name,
      });
      t.match(over.json, { code: 6, msg: /exceeded max depth/ }, `${where} at 10,001 levels: code 6`);
    }
  });
}
