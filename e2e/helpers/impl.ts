// The implementation under test: a directory of CNI plugins, ours (dist/bin, the default) or
// another one with the same plugin names, e.g. Debian's Go reference plugins:
//
//   CNI_E2E_PLUGIN_DIR=/usr/lib/cni npx tap e2e/bridge-*.test.ts
//
// Tests ask `impl.lacks(feature)` for their `skip` option. A feature is found missing only by
// asking the plugin itself (a wrong-typed value for a field it knows is an error, for a field
// it does not know is ignored) or by its VERSION answer, never by guessing from the path.
import { existsSync, openSync, readSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { uniqueName } from './netns.ts';
import { DIST_BIN, execPlugin, GO_BIN } from './plugins.ts';
import { isRoot, run } from './sh.ts';

export type Feature =
  | 'portIsolation'
  | 'vlanTrunk'
  | 'preserveDefaultVlan'
  | 'ipMasqBackend'
  | 'macspoofchk'
  | 'disableContainerInterface'
  | 'spec-1.1.0'
  | 'kernel-vlan-filtering';

export interface Impl {
  readonly dir: string;
  /** a short label for test names and messages */
  readonly label: string;
  /** true when the bridge executable is a compiled binary (the Go reference), not our script */
  readonly isGoBinary: boolean;
  /** the reason to skip a test that needs this feature, or false */
  lacks(...features: Feature[]): string | false;
}

export const PLUGIN_DIR = resolve(process.env['CNI_E2E_PLUGIN_DIR'] ?? DIST_BIN);

function isElf(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    readSync(fd, b, 0, 4, 0);
    return b.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } finally {
    closeSync(fd);
  }
}

// A field the plugin knows makes a wrong-typed value an error; an unknown one is ignored.
const FIELD_PROBES: [Feature, Record<string, unknown>][] = [
  ['portIsolation', { portIsolation: 'yes' }],
  ['vlanTrunk', { vlanTrunk: 'yes' }],
  ['preserveDefaultVlan', { preserveDefaultVlan: 'yes' }],
  ['ipMasqBackend', { ipMasqBackend: 5 }],
  ['macspoofchk', { macspoofchk: 'yes' }],
  ['disableContainerInterface', { disableContainerInterface: 'yes' }],
];

async function probe(dir: string): Promise<Map<Feature, string>> {
  const missing = new Map<Feature, string>();
  // DEL without a netns and without IPAM touches nothing; still, run it inside a throwaway node.
  const node = uniqueName('probe');
  await run('ip', ['netns', 'add', node]);
  try {
    const base = { cniVersion: '1.0.0', name: 'probe', type: 'bridge', bridge: 'cnitsprobe0', ipam: {} };
    const del = (extra: object) =>
      execPlugin('bridge', { command: 'DEL', containerId: 'probe', netns: '', ifname: 'eth0', cniPath: [dir], nodeNetns: node }, { ...base, ...extra }, dir);
    const baseline = await del({});
    if (baseline.code !== 0) return missing; // cannot tell: assume present, so tests run and show the failure
    const answers = await Promise.all(FIELD_PROBES.map(([, extra]) => del(extra)));
    FIELD_PROBES.forEach(([feature, extra], i) => {
      if (answers[i]?.code === 0) missing.set(feature, `${dir}/bridge does not know "${Object.keys(extra)[0]}" (a wrong-typed value is accepted)`);
    });
    const version = await execPlugin('bridge', { command: 'VERSION', cniPath: [dir] }, { cniVersion: '1.0.0' }, dir);
    const supported: string[] = version.json?.supportedVersions ?? [];
    if (!supported.includes('1.1.0')) {
      missing.set('spec-1.1.0', `${dir}/bridge does not support spec 1.1.0 (GC, STATUS); it supports ${supported.join(', ')}`);
    }
    const vf = await run('ip', ['-n', node, 'link', 'add', 'cnitsvf0', 'type', 'bridge', 'vlan_filtering', '1']).then(
      () => undefined,
      (e: Error) => e.message.split('\n').find((l) => l.includes('RTNETLINK')) ?? e.message,
    );
    if (vf !== undefined) {
      missing.set('kernel-vlan-filtering', `this kernel cannot make a vlan_filtering bridge (CONFIG_BRIDGE_VLAN_FILTERING): ${vf.trim()}`);
    }
  } finally {
    await run('ip', ['netns', 'del', node]).catch(() => undefined);
  }
  return missing;
}

async function load(dir: string): Promise<Impl> {
  const bridge = join(dir, 'bridge');
  const label = dir === DIST_BIN ? 'ours' : dir === GO_BIN ? 'go' : dir;
  const absent = ['bridge', 'host-local'].filter((p) => !existsSync(join(dir, p)));
  const whyNot: string | false = !isRoot
    ? 'e2e tests need root to create network namespaces'
    : absent.length > 0
      ? `no ${absent.join(' or ')} executable in ${dir} (build first: npm run build)`
      : false;
  const missing = whyNot === false ? await probe(dir) : new Map<Feature, string>();
  return {
    dir,
    label,
    isGoBinary: absent.length === 0 && isElf(bridge),
    lacks(...features) {
      if (whyNot !== false) return whyNot;
      const reasons = features.map((f) => missing.get(f)).filter((r) => r !== undefined);
      return reasons.length > 0 ? reasons.join('; ') : false;
    },
  };
}

/** The implementation under test, probed once per test process. */
export const impl: Impl = await load(PLUGIN_DIR);

/** The Go reference plugins, for interop tests (probed the same way). */
export async function goReference(): Promise<Impl> {
  return PLUGIN_DIR === GO_BIN ? impl : load(GO_BIN);
}
