// A bridge ADD killed with SIGKILL anywhere along its way must not wedge the pod: the runtime's
// DEL (same config, no prevResult — a runtime whose ADD died has no cached result) removes
// whatever the ADD got to make, and a new ADD for the pod then works and is cleaned up by DEL.
// The sweep kills after 0 ms, then at even steps up to a little past a whole ADD's duration.
// Timed kills land wherever a loaded machine puts them (most of an ADD is Node starting up), so
// two more kills are set off by the ADD's own progress: when the node reports its new veth
// (`ip monitor link`), and when host-local's IP file appears. What the ADD left before the DEL
// (it makes the veth, then the spoofcheck rules, then takes the IP, then the masquerade rules)
// shows where each kill landed; the test asserts kills landed part-way (something made, not
// everything) at two or more distinct points.
// Judges the implementation CNI_E2E_FORM names (ours by default, go for the reference; see e2e/helpers/impl.ts).
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { addPod, bridgeConf, delPod, POD_V6 } from '../helpers/bridge-net.ts';
import { impl } from '../helpers/impl.ts';
import { runKilledAfter, whenSeen, type Outcome, type Trigger } from '../helpers/kill.ts';
import { ipFiles, leftovers } from '../helpers/node-state.ts';
import { BASE_ENV } from '../helpers/plugins.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';
import { pluginEnv } from '../../tools/libcni/invoke.ts';

const STEPS = 10;
/** tries per progress trigger to land part-way (a kill can come after the ADD finished) */
const TRIES = 3;
/** Everything this ADD makes (bridge aside: the warm-up ADD made it): what `leftovers` finds after it. */
const ALL_MADE = ['IP files', 'links in pod', 'masquerade rules', 'spoofcheck rules', 'veths in node'];

/** Fires when `ip monitor link` in the node reports a new veth (the ADD's first step). */
async function vethAppears(node: string): Promise<Trigger> {
  const mon = spawn('ip', ['-n', node, 'monitor', 'link'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const fired = new Promise<void>((resolve) => mon.stdout.on('data', (b: Buffer) => /^\d+: veth/m.test(b.toString()) && resolve()));
  await sleep(100); // subscribed before the ADD starts (it takes longer than this to get going)
  return { fired, stop: () => void (mon.exitCode === null && mon.signalCode === null && mon.kill('SIGKILL')) };
}

/** Fires when host-local's address file appears (IPAM done, masquerading not yet). */
function ipFileAppears(dataDir: string): Trigger {
  return whenSeen(() => ipFiles(dataDir, 'podnet').length > 0);
}

/** A bridge ADD killed after `kill` ms or when the trigger fires. */
const addKilledAfter = (node: string, env: Record<string, string>, conf: object, kill: number | Trigger | undefined): Promise<Outcome> =>
  runKilledAfter({ node, exe: `${impl.dir}/bridge`, env, conf }, kill);

// macspoofchk is part of the sweep: ours always has it; only the Go reference may lack it.
t.test(`[${impl.label}] ADD killed at points along its way: DEL cleans up, a new ADD works`, { skip: impl.lacks('macspoofchk') }, async (t) => {
  const { node, dataDir } = await makeTopology(t);
  const conf = bridgeConf({
    dataDir,
    v6: { subnet: POD_V6.subnet },
    bridgeFields: { isGateway: true, ipMasq: true, hairpinMode: true, macspoofchk: true },
  });
  const clean = async (pod: string) => leftovers({ node: node.name, pod, dataDir, network: 'podnet' });
  const envFor = (pod: { ns: { path: string }; id: string }) =>
    pluginEnv({ command: 'ADD', containerId: pod.id, netns: pod.ns.path, ifname: 'eth0', cniPath: [impl.dir], baseEnv: BASE_ENV });

  // whole ADDs, unkilled: the first creates the bridge (as on a live node, it exists from then
  // on), the second is a typical ADD and sets the sweep's range
  let whole: Outcome | undefined;
  for (const id of ['kill-warm', 'kill-measure']) {
    const pod = { ns: await makePod(t), id };
    whole = await addKilledAfter(node.name, envFor(pod), conf, undefined);
    t.equal(whole.ended, 'exit 0', `an unkilled ADD succeeds (${whole.ms.toFixed(0)} ms)`);
    t.same(Object.keys(await clean(pod.ns.name)).sort(), ALL_MADE, 'a whole ADD makes veths, spoofcheck rules, IP files and masquerade rules');
    await delPod(impl.dir, node.name, conf, pod);
    t.same(await clean(pod.ns.name), {}, 'and its DEL leaves nothing');
  }
  const full = (whole as Outcome).ms;

  /** what each killed ADD had made ("" for nothing) */
  const landed: string[] = [];
  const summary: string[] = [];
  let n = 0;
  async function killAt(when: string, kill: () => Promise<number | Trigger>): Promise<string | undefined> {
    const pod = { ns: await makePod(t), id: `kill-${n++}` };
    const o = await addKilledAfter(node.name, envFor(pod), conf, await kill());
    const at = `ADD killed ${when} (${o.ended})`;
    t.ok(o.ended === 'SIGKILL' || o.ended === 'exit 0', `${at}: killed, or finished with success first`);
    const made = Object.keys(await clean(pod.ns.name))
      .sort()
      .join(', ');
    if (o.ended === 'SIGKILL') landed.push(made);
    summary.push(`${when}:${o.ended === 'SIGKILL' ? `killed[${made}]` : o.ended}`);
    const del = await delPod(impl.dir, node.name, conf, pod).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    t.equal(del, 'ok', `${at}: DEL without prevResult succeeds`);
    t.same(await clean(pod.ns.name), {}, `${at}: DEL leaves no veth, IP file, masquerade or spoofcheck rule`);
    const again = await addPod(impl.dir, node.name, conf, pod).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    t.equal(again, 'ok', `${at}: a new ADD for the pod succeeds`);
    await delPod(impl.dir, node.name, conf, pod);
    t.same(await clean(pod.ns.name), {}, `${at}: and its DEL leaves nothing`);
    return o.ended === 'SIGKILL' ? made : undefined;
  }
  // part-way: something made, not everything
  const isPartWay = (m: string | undefined) => m !== undefined && m !== '' && m !== ALL_MADE.join(', ');

  for (let i = 0; i < STEPS; i++) {
    const delay = Math.round((i * full * 1.1) / (STEPS - 1));
    await killAt(`after ${delay} ms`, async () => delay);
  }
  const triggers: [string, () => Promise<Trigger>][] = [
    ['when its veth appears', () => vethAppears(node.name)],
    ['when its IP file appears', async () => ipFileAppears(dataDir)],
  ];
  for (const [when, arm] of triggers) {
    for (let i = 0; i < TRIES && !isPartWay(await killAt(when, arm)); i++);
  }
  t.comment(`sweep: ${summary.join(' ')}`);
  const partWay = new Set(landed.filter(isPartWay));
  t.ok(partWay.size >= 2, `kills landed part-way through ADD at 2 or more distinct points: ${[...partWay].map((m) => `[${m}]`).join(' ')}`);
});
