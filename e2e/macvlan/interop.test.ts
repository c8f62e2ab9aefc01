// Interop with Debian's Go macvlan v1.1.1: what one implementation's ADD made (the macvlan in the
// pod, the host-local allocation), the other's DEL removes; Go → Go is the positive control. Our
// CHECK accepts the Go plugin's ADD, and both print the same result for the same config once the
// random MACs and the pod paths are set aside.
import t, { type Test } from 'tap';
import { addByEach, goReferenceMissing, handOverTests, implLabel, lanHandOver } from '../helpers/interop.ts';
import { ipFiles } from '../helpers/node-state.ts';
import { DIST_BIN, GO_BIN } from '../helpers/plugins.ts';
import { LAN, lanIpam, linksBesideLo, makeLan, podEth0 } from '../helpers/lan.ts';
import { makePod, pings } from '../helpers/topology.ts';
import { needsRoot } from '../../test-support/sh.ts';

const skip = needsRoot || goReferenceMissing('macvlan');
const NET = 'macvlaninterop';

async function handOver(t: Test, adder: string, deleter: string): Promise<void> {
  const world = await makeLan(t);
  const pod = await makePod(t);
  const plugin = { type: 'macvlan', master: LAN.master, mode: 'bridge', ipam: lanIpam(world.dataDir) };
  const h = lanHandOver(NET, plugin, { world, pod, id: 'mv-interop', adder, deleter });
  await h.add();
  t.equal((await podEth0(pod))?.linkinfo?.info_kind, 'macvlan', `${implLabel(adder)} ADD made the macvlan`);
  t.ok(await pings(pod.name, LAN.hostAddr), `the pod reaches the lan after ${implLabel(adder)} ADD`);
  t.equal(ipFiles(world.dataDir, NET).length, 1, `${implLabel(adder)} ADD allocated an address`);
  if (adder === GO_BIN) {
    const check = await h.ourCheck();
    t.equal(check.code, 0, `our CHECK accepts the Go ADD ${check.stdout}`);
  }
  // libcni hands DEL the cached result; the macvlan DEL of either does not read it
  await h.del();
  t.same(await linksBesideLo(pod), [], `${implLabel(deleter)} DEL left no link in the pod`);
  t.same(ipFiles(world.dataDir, NET), [], `${implLabel(deleter)} DEL released the address`);
}

handOverTests(skip, handOver);

for (const version of ['1.0.0', '0.4.0', '0.3.1', '0.2.0']) {
  t.test(`${version}: the same result as the Go plugin for the same config (static IPAM, dns, no IPAM)`, { skip }, async (t) => {
    const world = await makeLan(t);
    const configs: [string, Record<string, unknown>][] = [
      ['static', { ipam: { type: 'static', addresses: [{ address: '10.61.0.50/24', gateway: '10.61.0.254' }], routes: [{ dst: '0.0.0.0/0' }] } }],
      ['dns', { dns: { nameservers: ['10.61.0.53'] }, ipam: { type: 'static', addresses: [{ address: '10.61.0.51/24' }] } }],
      ['no IPAM', {}],
    ];
    for (const [what, extra] of configs) {
      const conf = { cniVersion: version, name: NET, type: 'macvlan', master: LAN.master, ...extra };
      const refused = version === '0.2.0' && what === 'no IPAM';
      const outs = await addByEach(t, { world, conf, id: 'mv-same' }, async (dir, r, pod) => {
        if (!refused) t.equal(r.code, 0, `${what}: ${implLabel(dir)} ADD ${r.stderr}`);
        else if (dir === DIST_BIN) t.same(await linksBesideLo(pod), [], 'our refused ADD made nothing');
      });
      if (refused) {
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
