// The one list of our programs. Every other list derives from it: the bundles (scripts/build/build.ts),
// the Bun binary's dispatch and links (runtime/programs.ts, scripts/build/build-bun.ts), the starter's
// settings (runtime/starter-env.ts), `cni-run validate` (tools/cni-run/plugin-checks.ts), the quick
// shapes (scripts/build/quick-shapes.ts), the bad-input generator's coverage, the bench's sections and
// `cni-ts install` (tools/install/, which installs what the build wrote). plugins/registry.test.ts fails when a
// folder under plugins/ has no entry, no e2e test, no bad-input target or no docs page.
//
// Cheap to import, since the Bun binary reads it on every start: plain data, and each module only
// as a lazy import, evaluated when that program runs (or when cni-run validates a config).
import type { CniRequest } from '../lib/cni-spec/request.ts';

/** Throws the CniError the plugin would print for a config it refuses (code 7, field paths in details). */
export type ConfLoader = (req: CniRequest) => void;

interface PluginCommon {
  /**
   * The module a stand-alone executable runs: plugins/<name>/main.ts, whose top level runs the
   * plugin. The multicall binary imports it when invoked under this name.
   */
  readonly main: () => Promise<unknown>;
  /**
   * The config loader the plugin runs before it touches anything, for `cni-run validate`; importing
   * its module also defines the plugin's named schemas (the quick shapes). Absent: the plugin reads
   * nothing beyond the fields every plugin shares.
   */
  readonly conf?: () => Promise<ConfLoader>;
  /** the runtimeConfig keys it reads: the capabilities worth declaring for it */
  readonly capabilities: readonly string[];
  /**
   * The Bun starter runs its ADD, CHECK, DEL and STATUS with JavaScriptCore's JIT off: only for a
   * plugin whose calls do fixed work (no rulesets, ranges or dumps that grow with the node).
   */
  readonly noJit?: boolean;
  /** its section of `npm run bench`: a module exporting `benchSection` (repo-relative) */
  readonly bench?: string;
}

export type PluginEntry =
  /** makes the container's interface; `usesIpam`: it delegates addresses to the plugin in `ipam.type` */
  | (PluginCommon & { readonly kind: 'main'; readonly usesIpam: boolean })
  /** an IPAM plugin, checked in the `ipam` section of the plugin that delegates to it */
  | (PluginCommon & { readonly kind: 'ipam' })
  /** works on a previous plugin's result (prevResult), so it cannot come first in a list */
  | (PluginCommon & { readonly kind: 'meta' });

/**
 * A runtime-side program. It lies above the plugins (cni-run validate uses their loaders), so
 * the registry names its module instead of importing it; runtime/programs.ts holds its lazy import.
 */
export interface ToolEntry {
  readonly kind: 'tool';
  /** repo-relative */
  readonly module: string;
}

export type ProgramEntry = PluginEntry | ToolEntry;

const load =
  (m: { loadConf: (req: CniRequest) => unknown }): ConfLoader =>
  (req) =>
    void m.loadConf(req);

export const REGISTRY = {
  loopback: { kind: 'main', main: () => import('./loopback/main.ts'), usesIpam: false, capabilities: [], noJit: true, bench: 'bench/loopback.ts' },
  bridge: {
    kind: 'main',
    main: () => import('./bridge/main.ts'),
    // bridge's ADD refuses a few combinations its DEL accepts; a config is judged as ADD sees it.
    conf: () => import('./bridge/conf.ts').then((m) => (req: CniRequest) => void m.loadConf(req, { forAdd: true })),
    usesIpam: true,
    capabilities: ['mac'],
    bench: 'bench/bridge.ts',
  },
  ptp: {
    kind: 'main',
    main: () => import('./ptp/main.ts'),
    conf: () => import('./ptp/conf.ts').then(load),
    usesIpam: true,
    capabilities: [],
    bench: 'bench/ptp.ts',
  },
  'host-local': {
    kind: 'ipam',
    main: () => import('./host-local/main.ts'),
    conf: () => import('../lib/ipam/host-local-conf.ts').then((m) => (req: CniRequest) => void m.loadHostLocalConf(req)),
    capabilities: ['ips', 'ipRanges'],
  },
  static: {
    kind: 'ipam',
    main: () => import('./static/main.ts'),
    conf: () => import('../lib/ipam/static-conf.ts').then((m) => (req: CniRequest) => void m.loadStaticConf(req)),
    capabilities: ['ips'],
    noJit: true,
  },
  portmap: {
    kind: 'meta',
    main: () => import('./portmap/main.ts'),
    conf: () => import('./portmap/conf.ts').then(load),
    capabilities: ['portMappings'],
    bench: 'bench/portmap.ts',
  },
  bandwidth: {
    kind: 'meta',
    main: () => import('./bandwidth/main.ts'),
    conf: () => import('./bandwidth/conf.ts').then(load),
    capabilities: ['bandwidth'],
    noJit: true,
    bench: 'bench/bandwidth.ts',
  },
  firewall: {
    kind: 'meta',
    main: () => import('./firewall/main.ts'),
    conf: () => import('./firewall/conf.ts').then(load),
    capabilities: [],
    bench: 'bench/firewall.ts',
  },
  tuning: {
    kind: 'meta',
    main: () => import('./tuning/main.ts'),
    conf: () => import('./tuning/conf.ts').then(load),
    capabilities: ['mac'],
    noJit: true,
    bench: 'bench/tuning.ts',
  },
  macvlan: {
    kind: 'main',
    main: () => import('./macvlan/main.ts'),
    conf: () => import('./macvlan/conf.ts').then((m) => (req: CniRequest) => void m.loadConf(req, { forAdd: true })),
    usesIpam: true,
    capabilities: ['mac'],
    bench: 'bench/macvlan.ts',
  },
  ipvlan: {
    kind: 'main',
    main: () => import('./ipvlan/main.ts'),
    // Judged as CHECK reads it: cni-run validate has no prevResult, from which a chained ipvlan
    // takes its master and addresses.
    conf: () => import('./ipvlan/conf.ts').then((m) => (req: CniRequest) => void m.loadConf({ ...req, command: 'CHECK' }, { forAdd: true })),
    usesIpam: true,
    capabilities: [],
    bench: 'bench/ipvlan.ts',
  },
  dummy: {
    kind: 'main',
    main: () => import('./dummy/main.ts'),
    conf: () => import('./dummy/conf.ts').then(load),
    usesIpam: true,
    capabilities: [],
    bench: 'bench/dummy.ts',
  },
  tap: {
    kind: 'main',
    main: () => import('./tap/main.ts'),
    // tap's ADD refuses an MTU or MAC the kernel would refuse; a config is judged as ADD sees it.
    conf: () => import('./tap/conf.ts').then((m) => (req: CniRequest) => void m.loadConf(req, { forAdd: true })),
    usesIpam: true,
    capabilities: ['mac'],
    bench: 'bench/tap.ts',
  },
  vlan: {
    kind: 'main',
    main: () => import('./vlan/main.ts'),
    conf: () => import('./vlan/conf.ts').then(load),
    usesIpam: true,
    capabilities: [],
    bench: 'bench/vlan.ts',
  },
  'host-device': {
    kind: 'main',
    main: () => import('./host-device/main.ts'),
    conf: () => import('./host-device/conf.ts').then(load),
    usesIpam: true,
    capabilities: ['deviceID'],
    bench: 'bench/host-device.ts',
  },
  sbr: {
    kind: 'meta',
    main: () => import('./sbr/main.ts'),
    conf: () => import('./sbr/conf.ts').then(load),
    capabilities: [],
    noJit: true,
    bench: 'bench/sbr.ts',
  },
  vrf: {
    kind: 'meta',
    main: () => import('./vrf/main.ts'),
    conf: () => import('./vrf/conf.ts').then(load),
    capabilities: [],
    bench: 'bench/vrf.ts',
  },
  // `dhcp daemon` is the long-running process that holds the leases; the plugin asks it.
  dhcp: {
    kind: 'ipam',
    main: () => import('./dhcp/main.ts'),
    conf: () => import('./dhcp/conf.ts').then(load),
    capabilities: [],
  },
  'cni-run': { kind: 'tool', module: 'tools/cni-run.ts' },
  'cni-ts': { kind: 'tool', module: 'tools/cni-ts.ts' },
} as const satisfies Record<string, ProgramEntry>;

export type ProgramName = keyof typeof REGISTRY;
export type PluginName = { [K in ProgramName]: (typeof REGISTRY)[K] extends ToolEntry ? never : K }[ProgramName];

/**
 * The program the Bun form's binary is itself named for: dist/bun/bin/cni-ts is the binary (which
 * the starters run), never a starter link; in the bundles it is a bundle like any other program.
 */
export const BINARY_PROGRAM = 'cni-ts' satisfies ProgramName;

/** Every program, in order. */
export const PROGRAM_NAMES = (Object.keys(REGISTRY) as ProgramName[]).sort();

export function isProgramName(name: string): name is ProgramName {
  return Object.hasOwn(REGISTRY, name);
}

export function programEntry(name: ProgramName): ProgramEntry {
  return REGISTRY[name];
}

/** The plugins (every program but the tools), in order. */
export const PLUGIN_NAMES = PROGRAM_NAMES.filter((n): n is PluginName => REGISTRY[n].kind !== 'tool');

export function pluginEntry(name: PluginName): PluginEntry {
  return REGISTRY[name];
}

/** The module a stand-alone executable of `name` runs (repo-relative). */
export function entryModule(name: ProgramName): string {
  const e = programEntry(name);
  return e.kind === 'tool' ? e.module : `plugins/${name}/main.ts`;
}
