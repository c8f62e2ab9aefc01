// Which file under /proc/sys a `sysctl` key of the config names. Pure.
//
// The reference (cmdAdd in plugins/meta/tuning/tuning.go, v1.1.1) turns every dot into a
// slash, puts the container's interface name in place of the first `IFNAME`, cleans the path
// and refuses anything outside /proc/sys/net/. The substitution comes after the dots are
// turned into slashes, so an interface name with a dot (a VLAN, "eth0.100") stays one segment
// (plugins#779).
import { posix } from 'node:path';

export interface PlannedSysctl {
  /** the key as written in the config */
  readonly key: string;
  /** the path under /proc/sys, slash-separated, e.g. "net/ipv4/conf/eth0/arp_filter" */
  readonly path: string;
  readonly value: string;
}

const PROC_SYS = '/proc/sys/';

/** The path under /proc/sys, or a message saying why the key is refused. */
export function planSysctlPath(key: string, ifname: string): { path: string } | { msg: string } {
  const slashed = key.replace(/\./g, '/').replace('IFNAME', ifname);
  const full = posix.join('/proc/sys', slashed);
  if (!full.startsWith(`${PROC_SYS}net/`)) return { msg: `invalid net sysctl key: ${JSON.stringify(slashed)}` };
  const path = full.slice(PROC_SYS.length);
  // A name the kernel would never show under /proc/sys (NUL, newline): no file to write.
  if (/[\0\n]/.test(path) || path.endsWith('/')) return { msg: `invalid net sysctl key: ${JSON.stringify(slashed)}` };
  return { path };
}

/**
 * Why a value cannot be written as one setting, or undefined. The reference writes any string:
 * the kernel stops at a newline and drops the rest of the write without an error ("1\n2" sets
 * 1), and refuses a NUL after a number only once the sysctls before it are written. Tab and
 * space stay: the kernel prints vectors (tcp_rmem, ip_local_port_range) with them.
 */
export function sysctlValueProblem(key: string, value: string): string | undefined {
  if (![...value].some(isControl)) return undefined;
  return `invalid sysctl value ${JSON.stringify(value)} for ${key}: control characters are not allowed`;
}

/** C0 controls but tab, DEL, C1 controls. */
function isControl(c: string): boolean {
  const n = c.charCodeAt(0);
  return (n < 0x20 && n !== 0x09) || (n >= 0x7f && n <= 0x9f);
}

/**
 * The reference's allowlist (/etc/cni/tuning/allowlist.conf, one regular expression a line,
 * unanchored like Go's regexp.MatchString): when the file exists, every key must match a line.
 */
export function allowlistProblem(key: string, allowlist: readonly string[]): string | undefined {
  for (const line of allowlist) {
    let re: RegExp;
    try {
      re = new RegExp(line);
    } catch (err) {
      return `invalid allowlist entry ${JSON.stringify(line)}: ${(err as Error).message}`;
    }
    if (re.test(key)) return undefined;
  }
  return `Sysctl ${key} is not allowed. Only the following sysctls are allowed: [${allowlist.join(' ')}]`;
}

export function parseAllowlist(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
}
