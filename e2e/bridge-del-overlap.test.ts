// bridge DEL with ipMasq has two waits of the kernel's: the veth's removal (an RCU grace
// period, with this thread blocked in the netlink request) and the masquerade tool's exit
// (its deleting commit's grace period). DEL starts the tool first and sends the removal while
// it runs, so the two waits overlap instead of adding up. In the Node form, starting the tool
// through node:child_process kept the thread busy long enough that the tool had often exited
// before the removal was even sent (4 of 7 traced DELs here). Timed with strace: the removal's
// netlink request against the tool's exit, over several pods.
import t, { type Test } from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bridgeConf, type BridgeResult } from './helpers/bridge-net.ts';
import { masqRulesOf } from './helpers/node-state.ts';
import { DIST_BIN, execPlugin, installOurs, tempDir } from './helpers/plugins.ts';
import { ipJson, needsRoot } from './helpers/sh.ts';
import { makePod, makeTopology } from './helpers/topology.ts';

const PODS = 5;
/** Of PODS DELs, how many must overlap: a loaded machine may deschedule the plugin for longer than the tool runs. */
const OVERLAPPING = 4;

/** A plugin dir whose bridge is ours under strace (execve, exit_group, sendto, with timestamps), with our host-local beside it. */
function tracedBridge(t: Test): { dir: string; log: string } {
  const dir = tempDir(t, 'cnits-del-overlap-');
  const log = join(dir, 'trace.log');
  installOurs('host-local', dir);
  const trace = `strace --seccomp-bpf -f -qq -tt -e trace=execve,exit_group,sendto -o '${log}'`;
  writeFileSync(join(dir, 'bridge'), `#!/bin/sh\nexec ${trace} '${join(DIST_BIN, 'bridge')}' "$@"\n`, { mode: 0o755 });
  return { dir, log };
}

const ms = (clock: string): number => {
  const [h = 0, m = 0, s = 0] = clock.split(':').map(Number);
  return ((h * 60 + m) * 60 + s) * 1000;
};

/** From one DEL's trace: when the veth's removal was sent, and when the masquerade tool started and exited (ms of the day). */
function timeline(trace: string): { removal?: number; toolStart?: number; toolExit?: number } {
  let toolPid: string | undefined;
  const out: { removal?: number; toolStart?: number; toolExit?: number } = {};
  for (const line of trace.split('\n')) {
    const m = /^(\d+)\s+(\S+) (.*)$/.exec(line);
    if (!m) continue;
    const [, pid, clock = '', call = ''] = m;
    if (/^execve\("[^"]*iptables-restore"/.test(call) && !call.includes('ENOENT')) [toolPid, out.toolStart] = [pid, ms(clock)];
    else if (pid === toolPid && call.startsWith('exit_group')) out.toolExit = ms(clock);
    // RTM_DELLINK; strace prints the bare number when it cannot tell the socket's protocol
    else if (/^sendto\(.*nlmsg_type=(?:RTM_DELLINK|0x11\b)/.test(call)) out.removal = ms(clock);
  }
  return out;
}

t.test('bridge DEL with ipMasq sends the veth removal while the masquerade tool still runs', { skip: needsRoot }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({ dataDir, name: 'deloverlap', bridge: 'cni-overlap', bridgeFields: { isGateway: true, ipMasq: true } });
  const traced = tracedBridge(t);
  let overlapping = 0;
  // Pod 0 is not counted: its DEL may be the build's first, which compiles without a code cache
  // (the bundles write theirs at exit) and so starts the removal later than any DEL after it.
  for (let i = 0; i <= PODS; i++) {
    const pod = await makePod(t);
    const ids = { containerId: `del-overlap-${i}`, netns: pod.path, ifname: 'eth0', nodeNetns: node.name };
    const add = await execPlugin('bridge', { command: 'ADD', ...ids }, conf);
    t.equal(add.code, 0, `ADD of pod ${i} ${add.code === 0 ? 'succeeds' : add.stdout}`);
    const addrs = ((add.json as BridgeResult | undefined)?.ips ?? []).map((ip) => ip.address);
    t.not((await masqRulesOf(node.name, ids.containerId, addrs)).length, 0, `pod ${i}'s masquerade rules are there`);

    writeFileSync(traced.log, '');
    const del = await execPlugin('bridge', { command: 'DEL', ...ids }, { ...conf, prevResult: add.json }, traced.dir);
    t.equal(del.code, 0, `DEL of pod ${i}: ${del.stdout}${del.stderr.slice(0, 400)}`);
    t.same(await masqRulesOf(node.name, ids.containerId, addrs), [], `pod ${i}'s masquerade rules are gone`);
    t.same(await ipJson(pod.name, ['link', 'show', 'eth0']).catch(() => []), [], `pod ${i}'s veth is gone`);

    const { removal, toolStart, toolExit } = timeline(readFileSync(traced.log, 'utf8'));
    t.ok(removal !== undefined && toolStart !== undefined && toolExit !== undefined, `the trace holds the removal and the tool's start and exit`);
    if (removal === undefined || toolStart === undefined || toolExit === undefined) continue;
    t.comment(
      `pod ${i}: tool started, removal sent ${(removal - toolStart).toFixed(1)} ms later, tool exited ${(toolExit - toolStart).toFixed(1)} ms after its start`,
    );
    if (i > 0 && removal < toolExit) overlapping++;
  }
  t.ok(overlapping >= OVERLAPPING, `the removal was sent while the tool ran in ${overlapping} of ${PODS} DELs (${OVERLAPPING} wanted)`);
});
