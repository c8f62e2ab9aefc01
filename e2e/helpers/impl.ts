// The implementation under test: a directory of CNI plugins, ours (DIST_BIN: the Bun form or
// the bundles) or Debian's Go reference plugins, to compare behaviour (CNI_E2E_FORM, plugins.ts):
//
//   npm run e2e -- --form go e2e/bridge/*.test.ts
//
// The rule: fail closed. Every feature of OUR executables is known when they are built, so for
// them `lacks(...)` never names a feature: a feature that is missing or broken makes its tests
// fail. Only the Go reference (a compiled binary, not our script) is probed, and only there may
// a plugin feature skip a test, with the reason: a wrong-typed value for a field it knows is an
// error, for a field it does not know is ignored; spec 1.1.0 by its VERSION answer. Apart from
// that, `lacks` gives only the allow-listed reasons of skip-reasons.ts: not root, a kernel
// whose `ip link add … type bridge vlan_filtering 1` answers EOPNOTSUPP, and a kernel without a
// link kind (ipvlan, vlan, dummy, vrf; then the kernel lab runs the test: e2e/kernel-lab.txt). Anything else (no
// executables, a probe that fails some other way) throws, so the test file fails and says why.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { uniqueName } from './netns.ts';
import { DIST_BIN, execPlugin, FORM, GO_BIN, isElf } from './plugins.ts';
import { isRoot, run, tryRun } from '../../test-support/sh.ts';
import { NO_KERNEL_LINK_KIND, NO_KERNEL_VLAN_FILTERING, NOT_ROOT } from '../../test-support/skip-reasons.ts';

export type Feature =
  | 'portIsolation'
  | 'vlanTrunk'
  | 'preserveDefaultVlan'
  | 'ipMasqBackend'
  | 'macspoofchk'
  | 'disableContainerInterface'
  | 'spec-1.1.0'
  | 'kernel-vlan-filtering'
  | KernelLinkFeature;

/** A link kind this machine's kernel may lack; the kernel lab (e2e/kernel-lab.txt) has them all. */
export type KernelLinkFeature = 'kernel-ipvlan' | 'kernel-vlan' | 'kernel-dummy' | 'kernel-vrf';

// The link each probe makes: its kind and the arguments `ip link add NAME` needs for it.
const LINK_PROBES: Record<KernelLinkFeature, { kind: string; config: string; args: string[] }> = {
  'kernel-ipvlan': { kind: 'ipvlan', config: 'CONFIG_IPVLAN', args: ['link', 'cnitslipvlan', 'type', 'ipvlan'] },
  'kernel-vlan': { kind: 'vlan', config: 'CONFIG_VLAN_8021Q', args: ['link', 'cnitslvlan', 'type', 'vlan', 'id', '5'] },
  'kernel-dummy': { kind: 'dummy', config: 'CONFIG_DUMMY', args: ['type', 'dummy'] },
  'kernel-vrf': { kind: 'vrf', config: 'CONFIG_NET_VRF', args: ['type', 'vrf', 'table', '100'] },
};

export interface Impl {
  readonly dir: string;
  /** a short label for test names and messages */
  readonly label: string;
  /** true when the bridge executable is the Go reference (a compiled binary that is not ours: our Bun form is one too) */
  readonly isGoBinary: boolean;
  /** the reason to skip a test that needs these features, or false; see the rule above */
  lacks(...features: Feature[]): string | false;
}

export const PLUGIN_DIR = FORM === 'go' ? GO_BIN : DIST_BIN;

// A field the plugin knows makes a wrong-typed value an error; an unknown one is ignored.
const FIELD_PROBES: [Feature, Record<string, unknown>][] = [
  ['portIsolation', { portIsolation: 'yes' }],
  ['vlanTrunk', { vlanTrunk: 'yes' }],
  ['preserveDefaultVlan', { preserveDefaultVlan: 'yes' }],
  ['ipMasqBackend', { ipMasqBackend: 5 }],
  ['macspoofchk', { macspoofchk: 'yes' }],
  ['disableContainerInterface', { disableContainerInterface: 'yes' }],
];

/** The Go reference's missing features, found by asking it (DEL without netns or IPAM touches nothing). */
async function probeReference(dir: string, node: string): Promise<Map<Feature, string>> {
  const missing = new Map<Feature, string>();
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
  return missing;
}

/**
 * The allow-listed reason when this kernel cannot make a vlan_filtering bridge, else undefined.
 * Only EOPNOTSUPP of the vlan_filtering bridge counts (with a plain bridge made fine, so the
 * answer is about VLAN filtering); any other failure is thrown.
 */
export async function probeKernelVlanFiltering(node: string): Promise<string | undefined> {
  const vf = await tryRun('ip', ['-n', node, 'link', 'add', 'cnitsvf0', 'type', 'bridge', 'vlan_filtering', '1']);
  if (vf.code === 0) return undefined;
  const said = vf.stderr.trim();
  if (!/^RTNETLINK answers: Operation not supported$/m.test(said)) {
    throw new Error(`probing bridge VLAN filtering: ip link add … type bridge vlan_filtering 1 failed (exit ${vf.code}) other than with EOPNOTSUPP: ${said}`);
  }
  const plain = await tryRun('ip', ['-n', node, 'link', 'add', 'cnitsbr0', 'type', 'bridge']);
  if (plain.code !== 0) throw new Error(`probing bridge VLAN filtering: even a plain bridge cannot be made: ${plain.stderr.trim()}`);
  return `${NO_KERNEL_VLAN_FILTERING}: ip link add … type bridge vlan_filtering 1 answered "${said}" (CONFIG_BRIDGE_VLAN_FILTERING)`;
}

/**
 * The allow-listed reason when this kernel cannot make a link of `feature`'s kind, else undefined.
 * Only "Unknown device type" or EOPNOTSUPP count; any other failure is thrown. The lower device
 * the vlan and ipvlan probes need is a veth (a kind every kernel here has).
 */
export async function probeKernelLinkKind(node: string, feature: KernelLinkFeature): Promise<string | undefined> {
  const { kind, config, args } = LINK_PROBES[feature];
  await run('ip', ['-n', node, 'link', 'add', `cnitsl${kind}`, 'type', 'veth', 'peer', 'name', `cnitsm${kind}`]);
  const made = await tryRun('ip', ['-n', node, 'link', 'add', `cnitsp${kind}`, ...args]);
  if (made.code === 0) return undefined;
  const said = made.stderr.trim();
  if (!/Unknown device type|Operation not supported/.test(said)) {
    throw new Error(`probing the kernel for ${kind} links: ip link add … type ${kind} failed (exit ${made.code}) otherwise: ${said}`);
  }
  return `${NO_KERNEL_LINK_KIND}: ${kind} (${config}): ip link add … type ${kind} answered "${said}"`;
}

/** Runs `fn` with a throwaway netns that plays the node, removed afterwards. */
async function inThrowawayNode<T>(fn: (node: string) => Promise<T>): Promise<T> {
  const node = uniqueName('probe');
  await run('ip', ['netns', 'add', node]);
  try {
    return await fn(node);
  } finally {
    await tryRun('ip', ['netns', 'del', node]);
  }
}

async function load(dir: string): Promise<Impl> {
  const absent = ['bridge', 'host-local'].filter((p) => !existsSync(join(dir, p)));
  if (absent.length > 0) {
    throw new Error(`no ${absent.join(' or ')} executable in ${dir}${dir === DIST_BIN ? ' (build first: npm run e2e builds a stale form)' : ''}`);
  }
  const label = dir === DIST_BIN ? 'ours' : dir === GO_BIN ? 'go' : dir;
  // Our executables (DIST_BIN: the bundles, or the Bun binary's links) are never probed: only
  // a compiled binary elsewhere is.
  const isGoBinary = dir !== DIST_BIN && isElf(join(dir, 'bridge'));
  const probed = isRoot
    ? await inThrowawayNode(async (node) => ({
        kernelVlan: await probeKernelVlanFiltering(node),
        kernelLinks: new Map(
          await Promise.all((Object.keys(LINK_PROBES) as KernelLinkFeature[]).map(async (f) => [f, await probeKernelLinkKind(node, f)] as const)),
        ),
        missing: isGoBinary ? await probeReference(dir, node) : new Map<Feature, string>(),
      }))
    : undefined;
  return {
    dir,
    label,
    isGoBinary,
    lacks(...features) {
      if (probed === undefined) return NOT_ROOT;
      const reasons = features.map((f) =>
        f === 'kernel-vlan-filtering' ? probed.kernelVlan : isKernelLink(f) ? probed.kernelLinks.get(f) : probed.missing.get(f),
      );
      const found = reasons.filter((r) => r !== undefined);
      return found.length > 0 ? found.join('; ') : false;
    },
  };
}

function isKernelLink(f: Feature): f is KernelLinkFeature {
  return Object.hasOwn(LINK_PROBES, f);
}

/** The implementation under test, probed once per test process. */
export const impl: Impl = await load(PLUGIN_DIR);

/** The Go reference plugins, for interop tests (probed the same way). */
export async function goReference(): Promise<Impl> {
  return PLUGIN_DIR === GO_BIN ? impl : load(GO_BIN);
}
