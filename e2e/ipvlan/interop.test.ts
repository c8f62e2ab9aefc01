// Interop with Debian's Go ipvlan v1.1.1: what one implementation's ADD made (the ipvlan in the
// pod, the host-local allocation), the other's DEL removes; Go → Go is the positive control. Our
// CHECK accepts the Go plugin's ADD, and both print the same result for the same config (IPAM,
// dns, chained on prevResult) once the pod paths are set aside.
import t, { type Test } from 'tap';
import { impl } from '../helpers/impl.ts';
import { addByEach, goReferenceMissing, handOverTests, implLabel, lanHandOver } from '../helpers/interop.ts';
import { ipsCarryVersion } from '../helpers/spec-versions.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { GO_BIN } from '../helpers/plugins.ts';
import { LAN, lanIpam, linksBesideLo, makeLan, podEth0 } from '../helpers/lan.ts';
import { makePod, pings } from '../helpers/topology.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot || impl.lacks('kernel-ipvlan') || goReferenceMissing('ipvlan');
const NET = 'ipvlaninterop';

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const world = await makeLan(t);
  const pod = await makePod(t);
  const plugin = { type: 'ipvlan', master: LAN.master, mode: 'l2', ipam: lanIpam(world.dataDir) };
  const h = lanHandOver(NET, plugin, { world, pod, id: 'iv-interop', adder, deleter });
  await h.add();
  t.equal((await podEth0(pod))?.linkinfo?.info_kind, 'ipvlan', `${implLabel(adder)} ADD made the ipvlan`);
  t.ok(await pings(pod.name, LAN.hostAddr), `the pod reaches the lan after ${implLabel(adder)} ADD`);
  t.equal(ipFiles(world.dataDir, NET).length, 1, `${implLabel(adder)} ADD allocated an address`);
  if (adder === GO_BIN) {
    const check = await h.ourCheck();
    t.equal(check.code, 0, `our CHECK accepts the Go ADD ${check.stdout}`);
  }
  // libcni hands DEL the cached result; the ipvlan DEL of either does not read it
  await h.del();
  t.same(await linksBesideLo(pod), [], `${implLabel(deleter)} DEL left no link in the pod`);
  t.same(ipFiles(world.dataDir, NET), [], `${implLabel(deleter)} DEL released the address`);
}

handOverTests(skip, handOver);

for (const version of ['1.0.0', '0.4.0', '0.3.1', '0.2.0']) {
  t.test(`${version}: the same result as the Go plugin for the same config (static IPAM, dns, chained)`, { skip }, async (t) => {
    const world = await makeLan(t);
    const configs: [string, Record<string, unknown>][] = [
      ['static', { ipam: { type: 'static', addresses: [{ address: '10.61.0.50/24', gateway: '10.61.0.254' }], routes: [{ dst: '0.0.0.0/0' }] } }],
      ['dns', { dns: { nameservers: ['10.61.0.53'] }, ipam: { type: 'static', addresses: [{ address: '10.61.0.51/24' }] } }],
      // a prevResult is read in the config's version: this one is written in 1.0.0's shape
      ...(version === '0.2.0'
        ? []
        : ([
            [
              'chained',
              {
                master: undefined,
                prevResult: {
                  cniVersion: version,
                  interfaces: [{ name: LAN.master }],
                  ips: [{ interface: 0, address: '10.61.0.52/24', ...(ipsCarryVersion(version) && { version: '4' }) }],
                  routes: [{ dst: '10.63.0.0/16', gw: LAN.hostAddr }],
                },
              },
            ],
          ] as [string, Record<string, unknown>][])),
    ];
    for (const [what, extra] of configs) {
      const conf = { cniVersion: version, name: NET, type: 'ipvlan', master: LAN.master, ...extra };
      const outs = await addByEach(t, { world, conf, id: 'iv-same' }, (dir, r) => {
        t.equal(r.code, 0, `${what}: ${implLabel(dir)} ADD ${r.stderr}`);
      });
      t.same(outs[0], outs[1], `${what}: our result is the Go plugin's`);
    }
  });
}
