// The tap's TUNSETIFF flags per way the reference makes it. Expected values: for `ip tuntap add`,
// what iproute2 6.1 passes to TUNSETIFF (strace: IFF_TAP|IFF_NO_PI, 0x1102 with multi_queue); for
// the netlink path, vishvananda/netlink v1.3.1's Flags: TUNTAP_VNET_HDR | IFF_TAP, and
// TUNTAP_MULTI_QUEUE_DEFAULTS (IFF_MULTI_QUEUE | IFF_NO_PI) added for multiQueue.
import t from 'tap';
import { planTapFlags, tapMtuProblem } from './tap-plan.ts';

t.test('ip tuntap path: owner or group missing, or an SELinux context', async (t) => {
  t.equal(planTapFlags({ multiQueue: false }), 0x1002);
  t.equal(planTapFlags({ multiQueue: true }), 0x1102);
  t.equal(planTapFlags({ multiQueue: false, owner: 0 }), 0x1002, 'owner alone');
  t.equal(planTapFlags({ multiQueue: true, group: 5 }), 0x1102, 'group alone');
  t.equal(planTapFlags({ multiQueue: false, owner: 1, group: 1, selinuxContext: 'x' }), 0x1002, 'both, with a context');
});

t.test('netlink path: both owner and group', async (t) => {
  t.equal(planTapFlags({ multiQueue: false, owner: 0, group: 0 }), 0x4002);
  t.equal(planTapFlags({ multiQueue: true, owner: 1000, group: 1000 }), 0x5102);
});

t.test("MTU: the tun driver's range, 68 to 65521 (ip -d link: min_mtu, max_mtu of a tap)", async (t) => {
  for (const ok of [0, 68, 1500, 65521]) t.equal(tapMtuProblem(ok), undefined, `${ok}`);
  for (const bad of [-1, 67, 65522, 65535]) t.match(tapMtuProblem(bad), `invalid MTU ${bad}`, `${bad}`);
});
