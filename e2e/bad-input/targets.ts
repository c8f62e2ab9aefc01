// The plugins the bad-input generator knows: one entry each. Fields come from each plugin's own
// schema (exported by its conf module), so a new field is covered without a new case; adding a
// plugin (portmap, bandwidth) is one more entry here.
import type * as z from 'zod/mini';
import { commonConfSchema } from '../../lib/cni-spec/common-conf.ts';
import { hostLocalSchema } from '../../lib/ipam/host-local-schema.ts';
import { staticConfSchema } from '../../lib/ipam/static-conf.ts';
import { bridgeConfSchema } from '../../plugins/bridge/conf.ts';

export interface Ctx {
  /** host-local's dataDir for this batch */
  readonly dataDir: string;
  /** the network name */
  readonly name: string;
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
}

const HUGE = 'a'.repeat(1 << 20);
const IFNAMES = ['', 'a\u0000b', 'a/b', 'a:b', 'a b', 'a\tb', '.', '..', 'abcdefghijklmnop', 'br\u00e0', HUGE];
const IPS = ['1.2.3', '10.0.0.256', '::g', 'x', '10.0.0.1\u0000', HUGE];
const CIDRS = ['', '10.0.0.0/33', '10.0.0.0', 'fd00::/129', 'x/24', '10.0.0.0/24\u0000', HUGE];

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
    badNumbers: { vlan: [-1, 4095, 2 ** 31], mtu: [-1, 65536, 2 ** 53], 'vlanTrunk[0].id': [0, 4095, -1] },
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
];

/** The schemas a target's config is checked against, shared fields first. */
export const allSchemas = (t: Target): z.core.$ZodType[] => [commonConfSchema(), ...t.schemas()];
