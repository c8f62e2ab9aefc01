import t from 'tap';
import { allowlistProblem, parseAllowlist, planSysctlPath } from './sysctl-plan.ts';

t.test('keys become paths under /proc/sys/net, IFNAME naming the container interface', async (t) => {
  t.same(planSysctlPath('net.core.somaxconn', 'eth0'), { path: 'net/core/somaxconn' });
  t.same(planSysctlPath('net.ipv4.conf.IFNAME.arp_filter', 'eth0'), { path: 'net/ipv4/conf/eth0/arp_filter' });
  t.same(planSysctlPath('net.ipv4.conf.IFNAME.arp_filter', 'eth0.100'), { path: 'net/ipv4/conf/eth0.100/arp_filter' }, 'a dotted name stays one segment');
  t.same(planSysctlPath('net/ipv4/conf/all/forwarding', 'eth0'), { path: 'net/ipv4/conf/all/forwarding' });
});

t.test('anything outside /proc/sys/net is refused, traversal included', async (t) => {
  for (const key of ['kernel.hostname', 'net', '../../etc/passwd', 'netfoo.x', '']) {
    t.ok('msg' in planSysctlPath(key, 'eth0'), key);
  }
  t.ok('msg' in planSysctlPath('net/IFNAME/kernel/hostname', '..'), 'an interface name cannot climb out either');
  // Every dot becomes a slash first, as in the reference: ".." is an empty segment, not a parent.
  t.same(planSysctlPath('net/../kernel/hostname', 'eth0'), { path: 'net/kernel/hostname' });
});

t.test('allowlist: unanchored regular expressions, one a line', async (t) => {
  const list = parseAllowlist('^net\\.core\\.\n\n  ^net\\.ipv4\\.conf\\.IFNAME\\.  \n');
  t.same(list, ['^net\\.core\\.', '^net\\.ipv4\\.conf\\.IFNAME\\.']);
  t.equal(allowlistProblem('net.core.somaxconn', list), undefined);
  t.match(allowlistProblem('net.ipv4.ip_forward', list), /Sysctl net.ipv4.ip_forward is not allowed/);
});
