// firewall e2e helpers: running the plugin with a prevResult in a node netns, the FORWARD
// default-deny each backend is tested under, and what a pod's addresses leave in iptables and nft.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tap, { type Test } from 'tap';
import type { BridgeResult } from './bridge-net.ts';
import { execPlugin, type PluginRun, DIST_BIN } from './plugins.ts';
import { nsRun, tryRun } from '../../test-support/sh.ts';

export type FwBackend = 'iptables' | 'nftables';
export const FW_BACKENDS: readonly FwBackend[] = ['iptables', 'nftables'];

export interface FwRun {
  readonly node: string;
  readonly id: string;
  readonly netns: string;
  readonly conf: Record<string, unknown>;
  readonly ifname?: string;
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs one verb of `dir`/firewall in the node with `prevResult` (undefined: none) in its config. */
export function runFirewall(dir: string, command: 'ADD' | 'DEL' | 'CHECK' | 'STATUS' | 'GC', r: FwRun, prevResult?: BridgeResult): Promise<PluginRun> {
  const conf = prevResult === undefined ? r.conf : { ...r.conf, prevResult };
  return execPlugin(
    'firewall',
    {
      command,
      containerId: r.id,
      netns: r.netns,
      ifname: r.ifname ?? 'eth0',
      nodeNetns: r.node,
      ...(r.env && { baseEnv: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', ...r.env } }),
    },
    conf,
    dir,
  );
}

let records: string | undefined;

/** Where firewall keeps its records in these tests: a temp dir per test file, not the host's /run/cni/firewall. */
function recordsDir(): string {
  if (records === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'cnits-fw-records-'));
    tap.teardown(() => rmSync(dir, { recursive: true, force: true }));
    records = dir;
  }
  return records;
}

export const fwConf = (backend: FwBackend, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  cniVersion: '0.4.0',
  name: 'podnet',
  type: 'firewall',
  backend,
  dataDir: recordsDir(),
  ...extra,
});

/**
 * The node forwards nothing unless a rule accepts it. iptables: the FORWARD policy. nftables:
 * the policy of our own table's forward chain, set before any ADD (an accept in one nft table
 * cannot overrule a drop in another, docs/architecture.md); ADDs leave it as it is.
 */
export async function denyForwarding(node: string, backend: FwBackend): Promise<void> {
  if (backend === 'iptables') {
    await nsRun(node, 'iptables', ['-P', 'FORWARD', 'DROP']);
    await nsRun(node, 'ip6tables', ['-P', 'FORWARD', 'DROP']);
  } else {
    await nsRun(node, 'nft', ['add table inet cni_firewall']);
    await nsRun(node, 'nft', ['add chain inet cni_firewall forward { type filter hook forward priority filter ; policy drop ; }']);
  }
}

/** Every rule (iptables, both families) or set element (nft) that names one of `ips`. */
export async function firewallStateOf(node: string, ips: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const save of ['iptables-save', 'ip6tables-save']) {
    const text = (await tryRun('ip', ['netns', 'exec', node, save, '-t', 'filter'])).stdout;
    out.push(...text.split('\n').filter((l) => ips.some((ip) => l.includes(` ${ip}/`))));
  }
  const nft = await tryRun('ip', ['netns', 'exec', node, 'nft', 'list', 'table', 'inet', 'cni_firewall']);
  // nft prints several elements on a line: one entry per address found
  out.push(...ips.filter((ip) => new RegExp(`[{ ,]${ip.replaceAll('.', '\\.')}[ ,}]`).test(nft.stdout)).map((ip) => `nft element ${ip}`));
  return out;
}

/** ADD that must succeed. */
export async function fwAdd(t: Test, r: FwRun, prev: BridgeResult, dir = DIST_BIN): Promise<void> {
  const add = await runFirewall(dir, 'ADD', r, prev);
  t.equal(add.code, 0, `firewall ADD ${r.id} succeeds ${add.stdout}${add.stderr.slice(0, 500)}`);
}
