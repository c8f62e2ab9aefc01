// Sysctl key to /proc/sys path. Pure, so it can be tested without root.

/**
 * Keys may use dots or slashes, as in the reference's utils/sysctl: when the
 * first separator is a dot, dots and slashes swap, so an interface name with a
 * dot can still be written: net.ipv4.conf.eth0/100.rp_filter is the same key
 * as net/ipv4/conf/eth0.100/rp_filter.
 */
export function normalizeSysctlKey(key: string): string {
  const firstSep = /[./]/.exec(key)?.[0];
  if (firstSep !== '.') return key;
  return key.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}

const SEGMENT = /^[a-zA-Z0-9_.-]+$/;

/**
 * Validates a key (parts of it, such as interface names, come from config) and
 * returns its path under /proc/sys. Throws a TypeError for anything that could
 * leave /proc/sys or name a directory.
 */
export function sysctlPath(key: string): string {
  const segments = normalizeSysctlKey(key).split('/');
  const ok = segments.length >= 2 && segments.every((s) => SEGMENT.test(s) && s !== '.' && s !== '..');
  if (!ok) throw new TypeError(`invalid sysctl key ${JSON.stringify(key)}`);
  return `/proc/sys/${segments.join('/')}`;
}
