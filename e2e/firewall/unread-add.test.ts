// The common firewall ADD (a node where an earlier pod made the shared chains) writes without
// reading the table through a tool: iptables-nft's rules and our nft table are looked at over
// nfnetlink instead. These tests pin when that path is taken and that it changes nothing of
// what ADD leaves: no rule twice, a missing shared rule put back, `forward` rewritten when it is
// not ours. A logging wrapper of iptables-save (first on the plugin's PATH) counts the reads;
// strace shows where an iptables ADD writes over nfnetlink and starts no process at all, and
// that DEL, on either backend, finds and deletes the pod's rules or elements the same way.
import t, { type Test } from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { BridgeResult } from '../helpers/bridge-net.ts';
import { firewallStateOf, fwConf, runFirewall, type FwBackend, type FwRun } from '../helpers/firewall.ts';
import { DIST_BIN, GO_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot, nsRun } from '../../test-support/sh.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';

const skip = needsRoot;
const goSkip = skip || (existsSync(join(GO_BIN, 'firewall')) ? false : `the Go reference firewall is not installed at ${GO_BIN}`);
const SYSTEM_PATH = '/usr/sbin:/usr/bin:/sbin:/bin';

/** A dual-stack pod's prevResult. */
const prevOf = (i: number): BridgeResult => ({
  cniVersion: '0.4.0',
  interfaces: [{ name: 'cni0' }, { name: `veth${i}` }, { name: 'eth0', sandbox: '/run/netns/x' }],
  ips: [
    { address: `10.244.0.${10 + i}/24`, gateway: '10.244.0.1', interface: 2 },
    { address: `fd00:244::${(10 + i).toString(16)}/64`, gateway: 'fd00:244::1', interface: 2 },
  ],
});
const ipsOf = (i: number): string[] => prevOf(i).ips.map((ip) => ip.address.split('/')[0]!);

/** A directory whose iptables-save and ip6tables-save log each run, then run the real tool. */
function countingSaves(t: Test): { path: string; runs: () => number } {
  const dir = tempDir(t, 'cnits-fw-saves-');
  const log = join(dir, 'runs.log');
  writeFileSync(log, '');
  for (const tool of ['iptables-save', 'ip6tables-save']) {
    writeFileSync(join(dir, tool), `#!/bin/sh\necho "${tool} $*" >> '${log}'\nexec /usr/sbin/${tool} "$@"\n`, { mode: 0o755 });
  }
  return { path: `${dir}:${SYSTEM_PATH}`, runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
}

async function add(t: Test, r: FwRun, i: number): Promise<void> {
  const res = await runFirewall(DIST_BIN, 'ADD', { ...r, id: `unread-${i}` }, prevOf(i));
  t.equal(res.code, 0, `ADD of pod ${i} succeeds ${res.stdout}${res.stderr.slice(0, 400)}`);
}

async function check(t: Test, r: FwRun, i: number): Promise<void> {
  const res = await runFirewall(DIST_BIN, 'CHECK', { ...r, id: `unread-${i}` }, prevOf(i));
  t.equal(res.code, 0, `CHECK of pod ${i} passes ${res.stdout}`);
}

async function delAll(t: Test, r: FwRun, pods: readonly number[]): Promise<void> {
  for (const i of pods) t.equal((await runFirewall(DIST_BIN, 'DEL', { ...r, id: `unread-${i}` }, prevOf(i))).code, 0, `DEL of pod ${i} succeeds`);
  t.same(await firewallStateOf(r.node, pods.flatMap(ipsOf)), [], 'nothing of the pods is left');
}

/** A fresh node and pod, and the firewall's run in them; `env` goes to the plugin. */
async function fwNode(t: Test, backend: FwBackend, env?: FwRun['env']): Promise<FwRun> {
  const { node } = await makeTopology(t);
  const pod = await makePod(t);
  return { node: node.name, id: '', netns: pod.path, conf: fwConf(backend), ...(env && { env }) };
}

const cniForward = async (node: string, save: string): Promise<string[]> =>
  (await nsRun(node, save, ['-t', 'filter'])).split('\n').filter((l) => l.startsWith('-A CNI-FORWARD '));

/** Pod i's two CNI-FORWARD rules in each family, as iptables-save prints them, and nothing else of its addresses. */
async function podRulesOnce(t: Test, node: string, i: number, what: string): Promise<void> {
  const [v4, v6] = ipsOf(i);
  for (const [save, ip] of [
    ['iptables-save', `${v4}/32`],
    ['ip6tables-save', `${v6}/128`],
  ] as const) {
    t.same(
      (await cniForward(node, save)).filter((l) => l.includes(ip)),
      [`-A CNI-FORWARD -d ${ip} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`, `-A CNI-FORWARD -s ${ip} -j ACCEPT`],
      `${save}: ${what}`,
    );
  }
}

t.test('iptables: ADD on a node with the chains in place runs no iptables-save, and writes what the read path writes', { skip }, async (t) => {
  const saves = countingSaves(t);
  const r = await fwNode(t, 'iptables', { PATH: saves.path });

  await add(t, r, 1);
  const first = saves.runs();
  t.ok(first >= 2, `the first pod, with no chains yet, reads both tables (${first} runs)`);
  await add(t, r, 2);
  t.equal(saves.runs(), first, 'the second pod reads neither table');
  await check(t, r, 2);
  await podRulesOnce(t, r.node, 2, "the second pod's two rules, once each");
  await delAll(t, r, [1, 2]);
});

t.test('iptables: rules of an address left behind (a DEL that never came) are not appended twice', { skip }, async (t) => {
  const saves = countingSaves(t);
  const r = await fwNode(t, 'iptables', { PATH: saves.path });
  await add(t, r, 1);
  // What pod 3's ADD would write, there already from an earlier pod with the same address.
  await nsRun(r.node, 'iptables', ['-A', 'CNI-FORWARD', '-s', '10.244.0.13/32', '-j', 'ACCEPT']);
  const before = saves.runs();
  await add(t, r, 3);
  t.ok(saves.runs() > before, 'the ADD read the IPv4 table: a rule names its address');
  const v4 = (await cniForward(r.node, 'iptables-save')).filter((l) => l.includes('10.244.0.13/32'));
  t.same(
    v4,
    ['-A CNI-FORWARD -s 10.244.0.13/32 -j ACCEPT', '-A CNI-FORWARD -d 10.244.0.13/32 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT'],
    'the rule that was there stays single; only the missing one was added',
  );
  await delAll(t, r, [1, 3]);
});

t.test('iptables: a shared rule someone removed is put back, first in its chain', { skip }, async (t) => {
  const r = await fwNode(t, 'iptables');
  await add(t, r, 1);
  const adminJump = ['-m', 'comment', '--comment', 'CNI firewall plugin admin overrides', '-j', 'CNI-ADMIN'];
  await nsRun(r.node, 'iptables', ['-D', 'CNI-FORWARD', ...adminJump]);
  await add(t, r, 2);
  const rules = await cniForward(r.node, 'iptables-save');
  t.equal(rules[0], '-A CNI-FORWARD -m comment --comment "CNI firewall plugin admin overrides" -j CNI-ADMIN', 'the admin jump is back, first');
  t.equal(rules.filter((l) => l.includes('10.244.0.12/32')).length, 2, "and the second pod's rules are there");
  await delAll(t, r, [1, 2]);
});

/** A plugin dir whose firewall is ours run under strace, which logs every program it starts. */
function tracedFirewall(t: Test): { dir: string; programs: () => string[] } {
  const dir = tempDir(t, 'cnits-fw-traced-');
  const log = join(dir, 'execve.log');
  writeFileSync(join(dir, 'firewall'), `#!/bin/sh\nexec strace -f -qq -e trace=execve -o '${log}' '${join(DIST_BIN, 'firewall')}' "$@"\n`, { mode: 0o755 });
  return {
    dir,
    programs: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .flatMap((l) => /execve\("([^"]+)"/.exec(l)?.[1] ?? []),
  };
}

/**
 * `verb` of pod i through the traced plugin: it succeeds, the trace saw the plugin start (so an
 * empty trace cannot pass), and no iptables, ip6tables or nft process started.
 */
async function runsNoTool(t: Test, traced: ReturnType<typeof tracedFirewall>, { r, verb, i }: { r: FwRun; verb: 'ADD' | 'DEL'; i: number }): Promise<void> {
  const res = await runFirewall(traced.dir, verb, { ...r, id: `unread-${i}` }, prevOf(i));
  t.equal(res.code, 0, `${verb} of pod ${i} succeeds ${res.stdout}${res.stderr.slice(0, 400)}`);
  const programs = traced.programs();
  t.ok(
    programs.some((p) => basename(p) === 'firewall'),
    `the trace saw the plugin start (${programs.join(', ')})`,
  );
  t.same(
    programs.filter((p) => /tables|nft/.test(basename(p))),
    [],
    `${verb} of pod ${i}: no iptables, ip6tables or nft process`,
  );
}

t.test('iptables: where the node is seen to write the rules as we do, ADD starts no process, and either DEL removes them', { skip: goSkip }, async (t) => {
  const r = await fwNode(t, 'iptables');
  await add(t, r, 1);
  t.equal((await runFirewall(GO_BIN, 'ADD', { ...r, id: 'unread-2' }, prevOf(2))).code, 0, 'the Go plugin adds pod 2');
  const traced = tracedFirewall(t);
  await runsNoTool(t, traced, { r, verb: 'ADD', i: 3 });
  await podRulesOnce(t, r.node, 3, "pod 3's two rules, once each, as iptables prints its own");
  await check(t, r, 3);
  t.equal((await runFirewall(GO_BIN, 'CHECK', { ...r, id: 'unread-3' }, prevOf(3))).code, 0, "the Go plugin's CHECK of pod 3 passes");
  t.equal((await runFirewall(GO_BIN, 'DEL', { ...r, id: 'unread-3' }, prevOf(3))).code, 0, 'the Go plugin deletes pod 3');
  t.same(await firewallStateOf(r.node, ipsOf(3)), [], "the Go plugin's DEL left nothing of pod 3");

  // Pod 2 is the Go plugin's: our DEL finds its rules too.
  await runsNoTool(t, traced, { r, verb: 'DEL', i: 2 });
  t.same(await firewallStateOf(r.node, ipsOf(2)), [], 'nothing of pod 2 is left');
  await podRulesOnce(t, r.node, 1, "pod 1's rules stay");
  await delAll(t, r, [1]);
});

t.test("nftables: DEL deletes its elements over nfnetlink (no process), and no one else's", { skip }, async (t) => {
  const r = await fwNode(t, 'nftables');
  await add(t, r, 1);
  await add(t, r, 2);
  const traced = tracedFirewall(t);
  await runsNoTool(t, traced, { r, verb: 'DEL', i: 1 });
  t.same(await firewallStateOf(r.node, ipsOf(1)), [], 'nothing of pod 1 is left');
  t.same(
    await firewallStateOf(r.node, ipsOf(2)),
    ipsOf(2).map((ip) => `nft element ${ip}`),
    "pod 2's addresses stay in the sets",
  );
  t.equal((await runFirewall(traced.dir, 'DEL', { ...r, id: 'unread-1' }, prevOf(1))).code, 0, 'a second DEL of pod 1 succeeds: nothing to do');
  await check(t, r, 2);
  await delAll(t, r, [2]);
});

/** Rule handles of our `forward` chain, in order (a rewrite gives every rule a new one). */
const forwardHandles = async (node: string): Promise<string[]> =>
  (await nsRun(node, 'nft', ['-a', 'list', 'chain', 'inet', 'cni_firewall', 'forward']))
    .split('\n')
    .filter((l) => !/^\s*(table|chain) /.test(l))
    .flatMap((l) => /# handle (\d+)$/.exec(l)?.[1] ?? []);

t.test('nftables: with the table in place ADD only adds its elements; a `forward` that is not ours is rewritten', { skip }, async (t) => {
  const r = await fwNode(t, 'nftables');
  await add(t, r, 1);
  const handles = await forwardHandles(r.node);
  t.equal(handles.length, 6, 'the first ADD wrote the six rules of `forward`');
  await add(t, r, 2);
  t.same(await forwardHandles(r.node), handles, 'the second ADD left `forward` as it was');
  t.same(
    await firewallStateOf(r.node, ipsOf(2)),
    ipsOf(2).map((ip) => `nft element ${ip}`),
    "the second pod's addresses are in the sets",
  );
  await check(t, r, 2);

  await nsRun(r.node, 'nft', ['add rule inet cni_firewall forward counter']);
  await add(t, r, 3);
  const after = await forwardHandles(r.node);
  t.equal(after.length, 6, 'an ADD that finds a rule of someone else in `forward` writes it whole again');
  t.notOk(
    after.some((h) => handles.includes(h)),
    'every rule is new',
  );
  t.same(
    await firewallStateOf(r.node, ipsOf(3)),
    ipsOf(3).map((ip) => `nft element ${ip}`),
    "the third pod's addresses are in the sets",
  );
  await delAll(t, r, [1, 2, 3]);
});
