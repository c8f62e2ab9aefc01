import t from 'tap';
import { normalizeSysctlKey, sysctlPath } from './sysctl-key.ts';

t.test('dots and slashes, as the reference normalizes them', async (t) => {
  t.equal(normalizeSysctlKey('net.ipv4.ip_forward'), 'net/ipv4/ip_forward');
  t.equal(normalizeSysctlKey('net/ipv4/ip_forward'), 'net/ipv4/ip_forward');
  t.equal(normalizeSysctlKey('net.ipv4.conf.eno2/100.rp_filter'), 'net/ipv4/conf/eno2.100/rp_filter');
  t.equal(normalizeSysctlKey('net/ipv4/conf/eno2.100/rp_filter'), 'net/ipv4/conf/eno2.100/rp_filter');
  t.equal(normalizeSysctlKey('kernel'), 'kernel');
});

t.test('valid keys map under /proc/sys', async (t) => {
  t.equal(sysctlPath('net.ipv4.ip_forward'), '/proc/sys/net/ipv4/ip_forward');
  t.equal(sysctlPath('net.ipv6.conf.veth-1_a/2.disable_ipv6'), '/proc/sys/net/ipv6/conf/veth-1_a.2/disable_ipv6');
  t.equal(sysctlPath('net/ipv4/conf/eth0.100/rp_filter'), '/proc/sys/net/ipv4/conf/eth0.100/rp_filter');
});

t.test('keys that could escape /proc/sys or are malformed are refused', async (t) => {
  for (const key of [
    '',
    'net',
    'net..ipv4',
    'net/../../etc/passwd',
    '../etc/passwd',
    'net/ipv4/conf/../../../../etc/shadow',
    'net.ipv4.conf./..rp_filter', // normalizes to net/ipv4/conf/../rp_filter
    '/net/ipv4/ip_forward',
    'net/ipv4/ip_forward/',
    'net.ipv4.conf.eth 0.rp_filter',
    'net.ipv4.conf.eth0\n.rp_filter',
    'net.ipv4.conf.$(reboot).rp_filter',
    'net/ipv4/conf/eth0:1/rp_filter',
  ]) {
    t.throws(() => sysctlPath(key), TypeError, JSON.stringify(key));
  }
});
