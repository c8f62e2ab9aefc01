// Interop with Debian's Go macvlan v1.1.1: what one implementation's ADD made (the macvlan in the
// pod, the host-local allocation), the other's DEL removes; Go → Go is the positive control. Our
// CHECK accepts the Go plugin's ADD, and both print the same result for the same config once the
// random MACs and the pod paths are set aside.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { ipFiles } from '../helpers/node-state.ts';
import { DIST_BIN, execPlugin, GO_BIN } from '../helpers/plugins.ts';
import { LAN, lanAttachment, lanIpam, linksBesideLo, makeLan, podEth0 } from '../helpers/lan.ts';
import { makePod, pings } from '../helpers/topology.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot || (existsSync(join(GO_BIN, 'macvlan')) ? false : `the Go reference macvlan is not installed at ${GO_BIN}`);
const label = (dir: string) => (dir === GO_BIN ? 'go' : 'ours');
const NET = 'macvlaninterop';

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const w = await makeLan(t);
  const pod = await makePod(t);
  const plugin = { type: 'macvlan', master: LAN.master, mode: 'bridge', ipam: lanIpam(w.dataDir) };
  const adding = lanAttachment(NET, plugin, { node: w.node, pod, id: 'mv-interop', cniPath: [adder] });
  const r = await adding.add();
  t.equal((await podEth0(pod))?.linkinfo?.info_kind, 'macvlan', `${label(adder)} ADD made the macvlan`);
  t.ok(await pings(pod.name, LAN.hostAddr), `the pod reaches the lan after ${label(adder)} ADD`);
  t.equal(ipFiles(w.dataDir, NET).length, 1, `${label(adder)} ADD allocated an address`);
  if (adder === GO_BIN) {
    const check = await execPlugin(
      'macvlan',
      { command: 'CHECK', containerId: 'mv-interop', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name },
      { cniVersion: '1.0.0', name: NET, ...plugin, prevResult: r },
    );
    t.equal(check.code, 0, `our CHECK accepts the Go ADD ${check.stdout}`);
  }
  const deleting = lanAttachment(NET, plugin, { node: w.node, pod, id: 'mv-interop', cniPath: [deleter] });
  // libcni hands DEL the cached result; the macvlan DEL of either does not read it
  await deleting.del();
  t.same(await linksBesideLo(pod), [], `${label(deleter)} DEL left no link in the pod`);
  t.same(ipFiles(w.dataDir, NET), [], `${label(deleter)} DEL released the address`);
}

t.test('control: Go ADD → Go DEL', { skip }, (t) => handOver(t, GO_BIN, GO_BIN));
t.test('Go ADD → our DEL', { skip }, (t) => handOver(t, GO_BIN, DIST_BIN));
t.test('our ADD → Go DEL', { skip }, (t) => handOver(t, DIST_BIN, GO_BIN));

// Debian's libcni (1.0.x) prints an empty `"dns": {}` in 1.x results; the reference since v1.2
// drops it, as we do. MACs are random per ADD, and each implementation gets a pod of its own.
function normalize(r: Record<string, any>, podPath: string): unknown {
  const { dns, ...rest } = r;
  const out: Record<string, any> = dns !== undefined && Object.keys(dns).length > 0 ? { ...r } : rest;
  if (Array.isArray(out['interfaces'])) {
    out['interfaces'] = out['interfaces'].map((i: Record<string, unknown>) => ({ ...i, mac: 'MAC', sandbox: i['sandbox'] === podPath ? 'POD' : i['sandbox'] }));
  }
  return out;
}

for (const version of ['1.0.0', '0.4.0', '0.3.1', '0.2.0']) {
  t.test(`${version}: the same result as the Go plugin for the same config (static IPAM, dns, no IPAM)`, { skip }, async (t) => {
    const w = await makeLan(t);
    const configs: [string, Record<string, unknown>][] = [
      ['static', { ipam: { type: 'static', addresses: [{ address: '10.61.0.50/24', gateway: '10.61.0.254' }], routes: [{ dst: '0.0.0.0/0' }] } }],
      ['dns', { dns: { nameservers: ['10.61.0.53'] }, ipam: { type: 'static', addresses: [{ address: '10.61.0.51/24' }] } }],
      ['no IPAM', {}],
    ];
    for (const [what, extra] of configs) {
      const outs: unknown[] = [];
      for (const dir of [DIST_BIN, GO_BIN]) {
        const pod = await makePod(t);
        const conf = { cniVersion: version, name: NET, type: 'macvlan', master: LAN.master, ...extra };
        const a = { containerId: 'mv-same', netns: pod.path, ifname: 'eth0', nodeNetns: w.node.name, cniPath: [dir] };
        const r = await execPlugin('macvlan', { command: 'ADD', ...a }, conf, dir);
        if (version !== '0.2.0' || what !== 'no IPAM') t.equal(r.code, 0, `${what}: ${label(dir)} ADD ${r.stderr}`);
        else if (dir === DIST_BIN) t.same(await linksBesideLo(pod), [], 'our refused ADD made nothing');
        outs.push(normalize(r.json ?? {}, pod.path));
        await execPlugin('macvlan', { command: 'DEL', ...a }, conf, dir);
      }
      if (version === '0.2.0' && what === 'no IPAM') {
        // no address for a 0.2.0 result: the Go plugin says so after making the link, and leaves it
        t.match(
          outs,
          [
            { code: 1, msg: 'cannot convert: no valid IP addresses' },
            { code: 999, msg: 'cannot convert: no valid IP addresses' },
          ],
          'both refuse',
        );
      } else {
        t.same(outs[0], outs[1], `${what}: our result is the Go plugin's`);
      }
    }
  });
}
