// The plugins the bad-input generator knows: one entry each. Fields come from each plugin's own
// schema (exported by its conf module), so a new field is covered without a new case; adding a
// plugin is one more entry here. Chained plugins (portmap, bandwidth) have a `prepare` that
// builds what the plugin before them leaves, so their valid config succeeds.
import type * as z from 'zod/mini';
import { commonConfSchema } from '../../lib/cni-spec/common-conf.ts';
import { hostLocalSchema } from '../../lib/ipam/host-local-schema.ts';
import { staticConfSchema } from '../../lib/ipam/static-conf.ts';
import { bandwidthConfSchema } from '../../plugins/bandwidth/conf.ts';
import { bridgeConfSchema } from '../../plugins/bridge/conf.ts';
import { firewallConfSchema } from '../../plugins/firewall/conf.ts';
import { portmapConfSchema } from '../../plugins/portmap/conf.ts';
import { ptpConfSchema } from '../../plugins/ptp/conf.ts';
import { dummyConfSchema } from '../../plugins/dummy/conf.ts';
import { tapConfSchema } from '../../plugins/tap/conf.ts';
import { tuningConfSchema } from '../../plugins/tuning/conf.ts';
import { sbrConfSchema } from '../../plugins/sbr/conf.ts';
import { CHAIN, prepareBridgeLike, type ChainWorld } from './chain-prep.ts';
import { ipvlanConfSchema } from '../../plugins/ipvlan/conf.ts';
import { macvlanConfSchema } from '../../plugins/macvlan/conf.ts';
import { LOWER_MASTER, prepareMaster } from './master-prep.ts';
import { hostDeviceConfSchema } from '../../plugins/host-device/conf.ts';
import { vlanConfSchema } from '../../plugins/vlan/conf.ts';
import { vrfConfSchema } from '../../plugins/vrf/conf.ts';
import { run } from '../sh.ts';
import { dhcpSocketOf, prepareDhcp } from './dhcp-prep.ts';
import { dhcpConfSchema } from '../../plugins/dhcp/conf.ts';

/** What a target's setup is given: the batch's netns, the implementation's plugin directory, its dataDir. */
export interface SetupWorld extends ChainWorld {
  readonly pluginDir: string;
  readonly dataDir: string;
}

/** The link kinds a kernel may lack (e2e/helpers/impl.ts probes them). */
export type KernelLinkFeature = 'kernel-ipvlan' | 'kernel-vlan' | 'kernel-dummy' | 'kernel-vrf';

export interface Ctx {
  /** host-local's dataDir for this batch */
  readonly dataDir: string;
  /** the network name */
  readonly name: string;
  /** chained targets: the result `prepare` returned, i.e. the prevResult of their ADD */
  readonly chain?: Record<string, unknown> | undefined;
}

/** A prevResult a chained plugin must answer with one of `codes`, or accept (`codes` absent) without changing anything. */
export interface PrevCase {
  readonly name: string;
  /** from the result `prepare` returned */
  readonly prev: (chain: Record<string, unknown>) => unknown;
  /** per verb; a verb left out expects success */
  readonly codes: Partial<Record<'ADD' | 'DEL' | 'CHECK', readonly number[]>>;
}

export interface Target {
  readonly plugin: string;
  /** what the plugin reads besides the shared fields (lib/cni-spec common-conf) */
  readonly schemas: () => readonly z.core.$ZodType[];
  /** a config the plugin accepts: ADD succeeds with it (the batch's positive control) */
  readonly base: (c: Ctx) => Record<string, unknown>;
  /** ADD and CHECK open CNI_NETNS */
  readonly usesNetns: boolean;
  /** CNI_ARGS is parsed (ADD; DEL too when delReadsConfig) */
  readonly readsCniArgs: boolean;
  /** DEL parses the plugin's own config (static's DEL reads nothing) */
  readonly delReadsConfig: boolean;
  /** string fields whose content matters, with values that must be refused (code 7) */
  readonly badStrings?: Readonly<Record<string, readonly string[]>>;
  /** numbers out of range, refused with code 7 */
  readonly badNumbers?: Readonly<Record<string, readonly number[]>>;
  /** the verbs that validate the values above (default: ADD) */
  readonly valueVerbs?: readonly ('ADD' | 'DEL' | 'CHECK')[];
  /**
   * Chained plugins: builds, in the batch's fresh node and pod, what the previous plugin leaves
   * and returns its result. Cases then also cover prevResult: each of its fields with every
   * wrong JSON type (from the result schema), and none at all.
   */
  readonly prepare?: (w: ChainWorld) => Promise<Record<string, unknown>>;
  /** prevResults that are well-formed JSON but wrong for this plugin */
  readonly prevCases?: readonly PrevCase[];
  /**
   * A link kind the plugin makes that a kernel may lack (`ip link add … type <kind>` answers
   * "Unknown device type"). On such a kernel the control's ADD must fail with the kernel's
   * EOPNOTSUPP, its DEL succeed, and CHECK cases get `standIn(podPath)` as their prevResult.
   */
  readonly kernelLink?: { readonly kind: string; readonly standIn: (podPath: string) => Record<string, unknown> };
  /**
   * What a plugin that runs first needs in the batch's node before its valid config can succeed
   * (host-device: the device it moves; vlan, macvlan, ipvlan: their master; dhcp: a DHCP server
   * and the implementation's daemon). Unlike `prepare`, no prevResult. What it returns, if
   * anything, the runner calls when it drops the batch (to stop the processes it started).
   */
  readonly setup?: (w: SetupWorld) => Promise<void | (() => Promise<void>)>;
  /** a link kind the plugin makes that a kernel may lack: its cases run only where the kernel has it (the kernel lab) */
  readonly onlyWithLink?: KernelLinkFeature;
}

const HUGE = 'a'.repeat(1 << 20);
const IFNAMES = ['', 'a\u0000b', 'a/b', 'a:b', 'a b', 'a\tb', '.', '..', 'abcdefghijklmnop', 'br\u00e0', HUGE];
const IPS = ['1.2.3', '10.0.0.256', '::g', 'x', '10.0.0.1\u0000', HUGE];
const CIDRS = ['', '10.0.0.0/33', '10.0.0.0', 'fd00::/129', 'x/24', '10.0.0.0/24\u0000', HUGE];
const PORTS = [0, -1, 65536, 2 ** 31, 2 ** 64];
// bits/s: negative, fractional, under a byte, beyond what a bucket of at most 4 GiB can hold for
// 1 µs (2^63), past uint64 (the reference decodes into it), past any float's integer
const RATES = [-1, 1.5, 7, 2 ** 63, 2 ** 64, 2 ** 70, 1e300];
const BURSTS = [-1, 0.5, 7, 2 ** 35, 2 ** 64, 1e300];
const ALL_VERBS = ['ADD', 'DEL', 'CHECK'] as const;
const DHCP_OPTIONS = ['', 'router', 'Routers', 'host_name', '256', '-1', '1.5', ' 3', '0x03', HUGE];

type Iface = { name?: string; sandbox?: string };
const interfacesOf = (chain: Record<string, unknown>) => (chain['interfaces'] ?? []) as Iface[];

export const TARGETS: readonly Target[] = [
  {
    plugin: 'loopback',
    schemas: () => [],
    base: (c) => ({ cniVersion: '1.0.0', name: c.name, type: 'loopback' }),
    usesNetns: true,
    readsCniArgs: false,
    delReadsConfig: false,
  },
  {
    plugin: 'bridge',
    schemas: () => [bridgeConfSchema(), hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'bridge',
      bridge: 'cnitsbi0',
      isGateway: true,
      ipMasq: true,
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.83.0.0/24' }]] },
    }),
    usesNetns: true,
    readsCniArgs: true,
    delReadsConfig: true,
    badStrings: {
      bridge: IFNAMES,
      ipMasqBackend: ['', 'ipfw', HUGE],
      'ipam.ranges[0][0].subnet': CIDRS,
      'ipam.ranges[0][0].gateway': IPS,
      'runtimeConfig.mac': ['x', '01:02:03:04:05:06', '00:00:00:00:00:00:00', HUGE],
    },
    badNumbers: { vlan: [-1, 4095, 2 ** 31], mtu: [-1, 10, 67, 65536, 2 ** 53], 'vlanTrunk[0].id': [0, 4095, -1] },
  },
  {
    plugin: 'host-local',
    schemas: () => [hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'host-local',
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.84.0.0/24' }]] },
    }),
    usesNetns: false,
    readsCniArgs: true,
    delReadsConfig: true,
    badStrings: {
      'ipam.ranges[0][0].subnet': CIDRS,
      'ipam.ranges[0][0].rangeStart': IPS,
      'ipam.ranges[0][0].rangeEnd': IPS,
      'ipam.ranges[0][0].gateway': IPS,
      'ipam.routes[0].dst': CIDRS,
      'runtimeConfig.ips[0]': IPS.filter((s) => s !== ''),
    },
  },
  {
    plugin: 'static',
    schemas: () => [staticConfSchema()],
    base: () => ({ cniVersion: '1.0.0', name: 'bi', type: 'static', ipam: { type: 'static', addresses: [{ address: '10.85.0.2/24', gateway: '10.85.0.1' }] } }),
    usesNetns: false,
    readsCniArgs: true,
    delReadsConfig: false,
    badStrings: {
      'ipam.addresses[0].address': CIDRS.filter((s) => s !== ''),
      'ipam.addresses[0].gateway': IPS,
      'ipam.routes[0].dst': CIDRS,
      'runtimeConfig.ips[0]': CIDRS,
    },
  },
  {
    plugin: 'portmap',
    schemas: () => [portmapConfSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'portmap',
      capabilities: { portMappings: true },
      snat: true,
      runtimeConfig: {
        portMappings: [
          { hostPort: 8080, containerPort: 80, protocol: 'tcp' },
          { hostPort: 8053, containerPort: 53, protocol: 'udp' },
        ],
      },
      prevResult: c.chain,
    }),
    usesNetns: false,
    readsCniArgs: false,
    delReadsConfig: true,
    valueVerbs: ALL_VERBS,
    badNumbers: {
      'runtimeConfig.portMappings[0].hostPort': PORTS,
      'runtimeConfig.portMappings[0].containerPort': PORTS,
      markMasqBit: [-1, 32, 2 ** 31],
    },
    badStrings: {
      'runtimeConfig.portMappings[0].protocol': ['', 'icmp', 'tcp\u0000', 'tcp udp', HUGE],
      'runtimeConfig.portMappings[0].hostIP': IPS,
      backend: ['', 'ebpf', HUGE],
      externalSetMarkChain: ['', 'a b', 'a;b', '-j', 'x'.repeat(29), HUGE],
      'conditionsV4[0]': ['-m "x', 'a;b', '$(reboot)', '\n', '-s 10.0.0.0/8 `x`', HUGE],
      'conditionsV6[0]': ['a;b', '\u0000'],
    },
    prepare: prepareBridgeLike,
    prevCases: [
      // nothing to forward to: the reference prints prevResult and touches no rule
      { name: 'no ips', prev: (chain) => ({ ...chain, ips: [] }), codes: {} },
      { name: 'ips only on the host side', prev: (chain) => ({ ...chain, ips: [{ interface: 1, address: CHAIN.v4.addr }] }), codes: {} },
    ],
  },
  {
    plugin: 'bandwidth',
    schemas: () => [bandwidthConfSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'bandwidth',
      capabilities: { bandwidth: true },
      runtimeConfig: { bandwidth: { ingressRate: 1_000_000, ingressBurst: 80_000, egressRate: 1_000_000, egressBurst: 80_000 } },
      prevResult: c.chain,
    }),
    usesNetns: true,
    readsCniArgs: false,
    delReadsConfig: true,
    valueVerbs: ALL_VERBS,
    badNumbers: {
      'runtimeConfig.bandwidth.ingressRate': RATES,
      'runtimeConfig.bandwidth.ingressBurst': BURSTS,
      'runtimeConfig.bandwidth.egressRate': RATES,
      'runtimeConfig.bandwidth.egressBurst': BURSTS,
      // a top-level key wins over runtimeConfig: alone, it is a rate without a burst or the reverse
      ingressRate: [-1, 2 ** 64],
      egressBurst: [-1, 2 ** 64],
    },
    prepare: prepareBridgeLike,
    // the host veth is found through prevResult (the reference's getHostInterface); DEL needs none
    prevCases: [
      { name: 'no interfaces', prev: (chain) => ({ ...chain, interfaces: [] }), codes: { ADD: [7], CHECK: [7] } },
      {
        name: 'host veth not listed',
        prev: (chain) => ({ ...chain, interfaces: interfacesOf(chain).filter((i) => i.name !== CHAIN.hostVeth) }),
        codes: { ADD: [7], CHECK: [7] },
      },
      {
        name: 'host veth listed in a sandbox',
        prev: (chain) => ({ ...chain, interfaces: interfacesOf(chain).map((i) => (i.name === CHAIN.hostVeth ? { ...i, sandbox: '/run/netns/x' } : i)) }),
        codes: { ADD: [7], CHECK: [7] },
      },
    ],
  },
  {
    plugin: 'firewall',
    schemas: () => [firewallConfSchema()],
    base: (c) => ({ cniVersion: '1.0.0', name: c.name, type: 'firewall', backend: 'iptables', ingressPolicy: 'same-bridge', prevResult: c.chain }),
    usesNetns: false,
    readsCniArgs: false,
    delReadsConfig: true,
    valueVerbs: ALL_VERBS,
    // '' is the reference's "not set" for each of them: the default, no error
    badStrings: {
      backend: ['ebpf', 'IPTABLES', 'iptables ', HUGE],
      iptablesAdminChainName: ['a b', 'a;b', '-j', 'x'.repeat(29), 'A\nB', HUGE],
      firewalldZone: ['a b', 'a;b', 'x'.repeat(18), '../x', HUGE],
      ingressPolicy: ['closed', 'isolated', 'Same-Bridge', HUGE],
    },
    prepare: prepareBridgeLike,
    prevCases: [
      // nothing to allow: the reference prints prevResult and touches no rule
      { name: 'no ips', prev: (chain) => ({ ...chain, ips: [] }), codes: {} },
      // same-bridge isolates by prevResult's first interface; DEL leaves the isolation rules, as the reference does
      { name: 'no interfaces', prev: (chain) => ({ ...chain, interfaces: [] }), codes: { ADD: [7], CHECK: [7] } },
      {
        name: 'bridge name with a quote',
        prev: (chain) => ({ ...chain, interfaces: [{ name: 'br"x' }, ...interfacesOf(chain).slice(1)] }),
        codes: { ADD: [7], CHECK: [7] },
      },
    ],
  },
  {
    plugin: 'ptp',
    schemas: () => [ptpConfSchema(), hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'ptp',
      ipMasq: true,
      mtu: 1400,
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.86.0.0/24' }]], routes: [{ dst: '0.0.0.0/0' }] },
    }),
    usesNetns: true,
    readsCniArgs: true,
    delReadsConfig: true,
    badStrings: {
      ipMasqBackend: ['', 'ipfw', HUGE],
      'ipam.ranges[0][0].subnet': CIDRS,
      'ipam.ranges[0][0].gateway': IPS,
    },
    // under 68 the kernel refuses the veth only after IPAM has allocated
    badNumbers: { mtu: [-1, 10, 67, 65536, 2 ** 53] },
  },
  {
    plugin: 'tuning',
    schemas: () => [tuningConfSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'tuning',
      dataDir: `${c.dataDir}/tuning`,
      capabilities: { mac: true },
      mtu: 1400,
      promisc: true,
      sysctl: { 'net.ipv4.conf.IFNAME.arp_filter': '1' },
      runtimeConfig: { mac: '02:00:00:00:00:77' },
      prevResult: c.chain,
    }),
    usesNetns: true,
    readsCniArgs: true,
    // DEL reads only dataDir: a config ADD refused must not block its DEL
    delReadsConfig: true,
    valueVerbs: ['ADD', 'CHECK'],
    badStrings: {
      // top-level mac is shadowed by runtimeConfig.mac in the base config (the later source wins)
      'runtimeConfig.mac': ['x', '01:02:03:04:05:06', HUGE],
      'args.cni.mac': ['x', HUGE],
      // the kernel would set 1 and drop the rest without an error
      'sysctl["net.ipv4.conf.IFNAME.arp_filter"]': ['1\n2', '1\u0000', '\u001b[1m'],
    },
    badNumbers: { mtu: [-1, 65536, 2 ** 53], txQLen: [-1, 2 ** 32, 2 ** 53] },
    prepare: prepareBridgeLike,
  },
  {
    plugin: 'dummy',
    schemas: () => [dummyConfSchema(), hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'dummy',
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.87.0.0/24' }]], routes: [{ dst: '10.88.0.0/16' }] },
    }),
    usesNetns: true,
    readsCniArgs: true,
    delReadsConfig: true,
    badStrings: { 'ipam.type': [''], 'ipam.ranges[0][0].subnet': CIDRS },
    kernelLink: {
      kind: 'dummy',
      standIn: (podPath) => ({
        cniVersion: '1.0.0',
        interfaces: [{ name: 'eth0', mac: '02:00:00:00:00:01', sandbox: podPath }],
        ips: [{ address: '10.87.0.2/24', gateway: '10.87.0.1', interface: 0 }],
      }),
    },
  },
  {
    plugin: 'tap',
    schemas: () => [tapConfSchema(), hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'tap',
      capabilities: { mac: true },
      multiQueue: true,
      mtu: 1400,
      owner: 0,
      group: 0,
      runtimeConfig: { mac: '02:00:00:00:00:78' },
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.89.0.0/24' }]], routes: [{ dst: '10.90.0.0/16' }] },
    }),
    usesNetns: true,
    readsCniArgs: true,
    delReadsConfig: true,
    badStrings: {
      // top-level mac is shadowed by runtimeConfig.mac in the base config (the later source wins)
      'runtimeConfig.mac': ['x', '01:02:03:04:05:06', '00:00:00:00:00:00', HUGE],
      'ipam.ranges[0][0].subnet': CIDRS,
    },
    // the tun driver's range is 68..65521; owner and group are Go uint32s
    badNumbers: { mtu: [-1, 67, 65522, 2 ** 53], owner: [-1, 2 ** 32, 2 ** 53], group: [-1, 2 ** 32] },
  },
  {
    plugin: 'vlan',
    schemas: () => [vlanConfSchema(), hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'vlan',
      master: 'vlbi0',
      vlanId: 100,
      mtu: 1400,
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.88.0.0/24' }]] },
    }),
    usesNetns: true,
    readsCniArgs: true,
    delReadsConfig: true,
    badStrings: { master: [''], 'ipam.ranges[0][0].subnet': CIDRS },
    // above the master's 1500: refused once the master is found, before the link is made
    badNumbers: { vlanId: [-1, 4095, 2 ** 31], mtu: [-1, 1501, 2 ** 31] },
    // up: the kernel refuses to bring a vlan up on a master that is down (ENETDOWN)
    setup: async (w) => {
      await run('ip', ['-n', w.node, 'link', 'add', 'vlbi0', 'type', 'veth', 'peer', 'name', 'vlbi1']);
      await run('ip', ['-n', w.node, 'link', 'set', 'vlbi0', 'up']);
    },
    onlyWithLink: 'kernel-vlan',
  },
  {
    plugin: 'host-device',
    schemas: () => [hostDeviceConfSchema(), hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'host-device',
      device: 'hdbi0',
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.89.0.0/24' }]] },
    }),
    usesNetns: true,
    readsCniArgs: true,
    delReadsConfig: true,
    badStrings: {
      // a bus address is one path component; a deviceID names a device sysfs lists
      pciBusID: ['a/b', '.', '..'],
      'runtimeConfig.deviceID': ['nope', '../devices', 'a/b', HUGE],
      'ipam.ranges[0][0].subnet': CIDRS,
    },
    setup: (w) => run('ip', ['-n', w.node, 'link', 'add', 'hdbi0', 'type', 'veth', 'peer', 'name', 'hdbi1']).then(() => undefined),
  },
  {
    plugin: 'macvlan',
    schemas: () => [macvlanConfSchema(), hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'macvlan',
      master: LOWER_MASTER,
      mode: 'bridge',
      mtu: 1400,
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.91.0.0/24' }]] },
    }),
    usesNetns: true,
    readsCniArgs: true,
    delReadsConfig: true,
    valueVerbs: ['ADD', 'CHECK'],
    // '' is the reference's "not set" for master (the default route's interface) and mode (bridge)
    badStrings: {
      master: IFNAMES.filter((s) => s !== ''),
      mode: ['switch', 'Bridge', 'bridge ', HUGE],
      mac: ['x', '00:00:00:00:00:00', '01:02:03:04:05:06', HUGE],
      'runtimeConfig.mac': ['x', '01:02:03:04:05:06', HUGE],
      'ipam.ranges[0][0].subnet': CIDRS,
    },
    // the master's MTU is 1500; under 68 the kernel refuses the link
    badNumbers: { mtu: [-1, 10, 67, 1501, 65536, 2 ** 53], bcqueuelen: [-1, 2 ** 32, 2 ** 53] },
    setup: prepareMaster,
  },
  {
    plugin: 'ipvlan',
    schemas: () => [ipvlanConfSchema(), hostLocalSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'ipvlan',
      master: LOWER_MASTER,
      mode: 'l2',
      mtu: 1400,
      ipam: { type: 'host-local', dataDir: c.dataDir, ranges: [[{ subnet: '10.92.0.0/24' }]] },
    }),
    usesNetns: true,
    readsCniArgs: false,
    delReadsConfig: true,
    valueVerbs: ['ADD', 'CHECK'],
    badStrings: {
      master: IFNAMES.filter((s) => s !== ''),
      mode: ['l4', 'L2', 'l2 ', HUGE],
      'ipam.ranges[0][0].subnet': CIDRS,
    },
    badNumbers: { mtu: [-1, 10, 67, 1501, 65536, 2 ** 53] },
    setup: prepareMaster,
    kernelLink: {
      kind: 'ipvlan',
      standIn: (podPath) => ({
        cniVersion: '1.0.0',
        interfaces: [{ name: 'eth0', mac: '02:00:00:00:00:01', sandbox: podPath }],
        ips: [{ address: '10.92.0.2/24', gateway: '10.92.0.1', interface: 0 }],
      }),
    },
  },
  {
    plugin: 'sbr',
    schemas: () => [sbrConfSchema()],
    base: (c) => ({ cniVersion: '1.0.0', name: c.name, type: 'sbr', prevResult: c.chain }),
    usesNetns: true,
    readsCniArgs: false,
    // DEL parses the config, as the reference's does: `table` picks the rules it removes
    delReadsConfig: true,
    valueVerbs: ALL_VERBS,
    badNumbers: { table: [0, -1, 2 ** 32, 2 ** 53] },
    prepare: prepareBridgeLike,
    // the addresses are found through prevResult (the reference's getIPCfgs); DEL needs none
    prevCases: [{ name: 'no addresses', prev: (chain) => ({ ...chain, ips: [] }), codes: { ADD: [7] } }],
  },
  {
    plugin: 'vrf',
    schemas: () => [vrfConfSchema()],
    base: (c) => ({ cniVersion: '1.0.0', name: c.name, type: 'vrf', vrfname: 'vrfbi', table: 100, prevResult: c.chain }),
    usesNetns: true,
    readsCniArgs: false,
    // every verb reads vrfname, DEL too (the reference's parseConf)
    delReadsConfig: true,
    valueVerbs: ['ADD', 'CHECK', 'DEL'],
    badStrings: { vrfname: ['', 'a/b', 'a b', '.', 'abcdefghijklmnop', HUGE] },
    badNumbers: { table: [-1, 2 ** 32, 2 ** 53] },
    prepare: prepareBridgeLike,
    onlyWithLink: 'kernel-vrf',
  },
  {
    plugin: 'dhcp',
    schemas: () => [dhcpConfSchema()],
    base: (c) => ({
      cniVersion: '1.0.0',
      name: c.name,
      type: 'dhcp',
      ipam: {
        type: 'dhcp',
        daemonSocketPath: dhcpSocketOf(c.dataDir),
        provide: [{ option: 'host-name', value: 'bi-pod' }],
        request: [{ option: 'subnet-mask', skipDefault: false }],
      },
    }),
    usesNetns: true,
    // only `provide[].fromArg` looks into CNI_ARGS, pair by pair, as the reference's options.go does
    readsCniArgs: false,
    delReadsConfig: true,
    // options are turned into bytes on ADD only: a DEL must not fail on what it does not send
    badStrings: {
      // '' is the reference's "not set": the default socket
      'ipam.daemonSocketPath': ['dhcp.sock', 'run/cni/dhcp.sock', './dhcp.sock', HUGE],
      // neither a dhcp-options(5) name the reference knows nor 0-255
      'ipam.provide[0].option': DHCP_OPTIONS,
      'ipam.request[0].option': DHCP_OPTIONS.filter((s) => s !== ''),
    },
    setup: prepareDhcp,
  },
];

/** The schemas a target's config is checked against, shared fields first. */
export const allSchemas = (t: Target): z.core.$ZodType[] => [commonConfSchema(), ...t.schemas()];
