// A firewall ADD killed with SIGKILL anywhere along its way, on either backend: the runtime's
// DEL (same config, no prevResult: a runtime whose ADD died has no cached result) leaves no rule,
// element or record of the pod, and a new ADD for it then works. ADD writes its record before
// its first rule, so no kill can leave a rule the record does not list. The sweep kills after
// 0 ms and at even steps up to a little past a whole ADD, then when the record appears (the
// rules not yet written) and when `nft monitor` in the node shows the first rule or element.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import type { BridgeResult } from '../helpers/bridge-net.ts';
import { firewallStateOf, fwConf, FW_BACKENDS, runFirewall, type FwBackend } from '../helpers/firewall.ts';
import { runKilledAfter, whenSeen, type Trigger } from '../helpers/kill.ts';
import { BASE_ENV, DIST_BIN, tempDir } from '../helpers/plugins.ts';
import { needsRoot } from '../../test-support/sh.ts';
import { makePod, makeTopology } from '../helpers/topology.ts';
import { pluginEnv } from '../../tools/libcni/invoke.ts';

const STEPS = 8;
const TRIES = 3;

const prevOf = (i: number): BridgeResult => ({
  cniVersion: '1.1.0',
  interfaces: [{ name: 'cni0' }, { name: `veth${i}` }, { name: 'eth0', sandbox: '/run/netns/x' }],
  ips: [
    { address: `10.244.0.${10 + i}/24`, gateway: '10.244.0.1', interface: 2 },
    { address: `fd00:244::${(10 + i).toString(16)}/64`, gateway: 'fd00:244::1', interface: 2 },
  ],
});
const ipsOf = (i: number): string[] => prevOf(i).ips.map((ip) => ip.address.split('/')[0]!);

/** Fires when `nft monitor` in the node reports a rule or element naming `ip`. */
async function ruleAppears(node: string, ip: string): Promise<Trigger> {
  const mon = spawn('ip', ['netns', 'exec', node, 'nft', 'monitor'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const fired = new Promise<void>((resolve) => mon.stdout.on('data', (b: Buffer) => b.toString().includes(ip) && resolve()));
  await sleep(100); // subscribed before the ADD starts
  return { fired, stop: () => void (mon.exitCode === null && mon.signalCode === null && mon.kill('SIGKILL')) };
}

async function sweep(t: Test, backend: FwBackend): Promise<void> {
  const { node } = await makeTopology(t);
  const pod = await makePod(t);
  const dataDir = tempDir(t, 'cnits-fw-kill-');
  const conf = fwConf(backend, { cniVersion: '1.1.0', dataDir });
  const records = (): string[] => {
    try {
      return readdirSync(join(dataDir, 'podnet'));
    } catch {
      return [];
    }
  };
  let n = 0;
  const summary: string[] = [];
  let killedWithSomething = 0;

  async function killAt(when: string, kill: (i: number) => Promise<number | Trigger | undefined>): Promise<{ made: string; ms: number }> {
    const i = n++;
    const id = `fwkill-${i}`;
    const env = pluginEnv({ command: 'ADD', containerId: id, netns: pod.path, ifname: 'eth0', cniPath: [DIST_BIN], baseEnv: BASE_ENV });
    const o = await runKilledAfter({ node: node.name, exe: join(DIST_BIN, 'firewall'), env, conf: { ...conf, prevResult: prevOf(i) } }, await kill(i));
    const made = [...(records().length > 0 ? ['record'] : []), ...((await firewallStateOf(node.name, ipsOf(i))).length > 0 ? ['rules'] : [])].join('+');
    const at = `ADD killed ${when} (${o.ended}, made [${made}])`;
    t.ok(o.ended === 'SIGKILL' || o.ended === 'exit 0', `${at}: killed, or finished with success first`);
    if (o.ended === 'SIGKILL' && made !== '') killedWithSomething++;
    summary.push(`${when}:${o.ended === 'SIGKILL' ? `killed[${made}]` : o.ended}`);
    const r = { node: node.name, id, netns: pod.path, conf };
    const del = await runFirewall(DIST_BIN, 'DEL', r);
    t.equal(del.code, 0, `${at}: DEL without prevResult succeeds ${del.stdout}`);
    t.same(await firewallStateOf(node.name, ipsOf(i)), [], `${at}: DEL leaves no rule or element of the pod`);
    t.same(records(), [], `${at}: and no record`);
    t.equal((await runFirewall(DIST_BIN, 'ADD', r, prevOf(i))).code, 0, `${at}: a new ADD for the pod succeeds`);
    t.equal((await runFirewall(DIST_BIN, 'DEL', r, prevOf(i))).code, 0, `${at}: and its DEL too`);
    t.same(await firewallStateOf(node.name, ipsOf(i)), [], `${at}: which leaves nothing`);
    return { made, ms: o.ms };
  }

  // The first ADD makes the shared chains (as on a live node, they exist from then on); the
  // second is a typical one and sets the sweep's range.
  await killAt('never (warm-up)', async () => undefined);
  const full = (await killAt('never (measure)', async () => undefined)).ms;
  for (let s = 0; s < STEPS; s++) {
    const delay = Math.round((s * full * 1.1) / (STEPS - 1));
    await killAt(`after ${delay} ms`, async () => delay);
  }
  const triggers: [string, (i: number) => Promise<Trigger>][] = [
    ['when its record appears', async () => whenSeen(() => records().length > 0)],
    ['when its first rule appears', (i) => ruleAppears(node.name, ipsOf(i)[0]!)],
  ];
  for (const [when, arm] of triggers) {
    for (let k = 0; k < TRIES && (await killAt(when, arm)).made === ''; k++);
  }
  t.comment(`sweep: ${summary.join(' ')}`);
  t.ok(killedWithSomething > 0, 'at least one kill landed after the ADD had made something');
}

for (const backend of FW_BACKENDS) {
  t.test(`${backend}: firewall ADD killed at points along its way: DEL without prevResult leaves nothing`, { skip: needsRoot }, (t) => sweep(t, backend));
}
