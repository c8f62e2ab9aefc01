// The firewalld backend (reference: https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/firewalld.go):
// each address goes into a zone ("trusted") through firewalld's D-Bus API. We talk to the bus
// through busctl (systemd's client, an argument array, never a shell): a plugin process makes
// one or two calls, not worth a D-Bus client of our own. When firewalld cannot be reached the
// backend fails and says what is missing; it never does nothing in silence.
import { existsSync } from 'node:fs';
import { lookPath, runTool, ToolError } from '../core/exec.ts';
import type { FirewallTarget } from './firewall-spec.ts';

const FWD_NAME = 'org.fedoraproject.FirewallD1';
const FWD_PATH = '/org/fedoraproject/FirewallD1';
const FWD_ZONE = 'org.fedoraproject.FirewallD1.zone';
const DEFAULT_BUS = '/run/dbus/system_bus_socket';
const UNAVAILABLE = 'firewalld backend unavailable';

/** The system bus socket to look for: DBUS_SYSTEM_BUS_ADDRESS's unix:path, else the default; undefined for other address kinds. */
function busSocket(): string | undefined {
  const addr = process.env['DBUS_SYSTEM_BUS_ADDRESS'];
  if (addr === undefined || addr === '') return DEFAULT_BUS;
  const m = /^unix:path=([^,;]+)/.exec(addr);
  return m ? m[1] : undefined;
}

const busctl = (args: readonly string[]): Promise<string> => runTool(lookPath('busctl')!, ['--system', ...args]);

/** Why firewalld cannot be used from here, or undefined. Costs one busctl call when a bus is there. */
export async function firewalldProblem(): Promise<string | undefined> {
  const socket = busSocket();
  if (socket !== undefined && !existsSync(socket)) return `${UNAVAILABLE}: the D-Bus system bus is not reachable (no socket at ${socket})`;
  if (lookPath('busctl') === undefined) return `${UNAVAILABLE}: "busctl" (needed to talk to D-Bus) not found in PATH`;
  let out: string;
  try {
    out = await busctl(['call', 'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'NameHasOwner', 's', FWD_NAME]);
  } catch (err) {
    return `${UNAVAILABLE}: the D-Bus system bus did not answer: ${(err as Error).message}`;
  }
  return out.trim() === 'b true' ? undefined : `${UNAVAILABLE}: firewalld is not running (${FWD_NAME} has no owner on the D-Bus system bus)`;
}

/** The reference's default: firewalld when it is running. Without a bus socket no process runs. */
export async function isFirewalldRunning(): Promise<boolean> {
  const socket = busSocket();
  if (socket !== undefined && !existsSync(socket)) return false;
  return (await firewalldProblem()) === undefined;
}

async function requireFirewalld(): Promise<void> {
  const problem = await firewalldProblem();
  if (problem !== undefined) throw new Error(problem);
}

const source = (a: { family: 4 | 6; ip: string }): string => `${a.ip}/${a.family === 4 ? 32 : 128}`;
const zoneCall = (method: string, args: readonly string[]): Promise<string> => busctl(['call', FWD_NAME, FWD_PATH, FWD_ZONE, method, ...args]);

export async function setupFirewalld(t: FirewallTarget): Promise<void> {
  await requireFirewalld();
  for (const a of t.addrs) {
    try {
      await zoneCall('addSource', ['ss', t.zone, source(a)]);
    } catch (err) {
      // The reference's one tolerated error: the address is in that zone already.
      if (err instanceof ToolError && err.stderr.includes('ZONE_ALREADY_SET')) continue;
      throw new Error(`failed to add the address ${source(a)} to ${t.zone} zone: ${(err as Error).message}`, { cause: err });
    }
  }
}

/**
 * DEL: the reference ignores every removeSource failure, so do we. Sources added through the
 * D-Bus API are runtime state that dies with firewalld: without firewalld there is nothing to
 * remove, and DEL succeeds (the reference fails when the bus is unreachable).
 */
export async function teardownFirewalld(t: FirewallTarget): Promise<void> {
  if (t.addrs.length === 0 || (await firewalldProblem()) !== undefined) return;
  for (const a of t.addrs) await zoneCall('removeSource', ['ss', t.zone, source(a)]).catch(() => undefined);
}

export async function checkFirewalld(t: FirewallTarget): Promise<void> {
  await requireFirewalld();
  for (const a of t.addrs) {
    const out = await zoneCall('querySource', ['ss', t.zone, source(a)]).catch(() => '');
    if (out.trim() !== 'b true') throw new Error(`failed to find the address ${source(a)} in ${t.zone} zone`);
  }
}
