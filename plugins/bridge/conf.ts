// The bridge plugin's configuration (reference NetConf, https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/bridge/bridge.go): validated and resolved in one go,
// before anything touches the host, into a frozen BridgeConf (docs/architecture.md#conventions).
import * as z from 'zod/mini';
import {
  cleanDNS,
  CniError,
  ErrorCode,
  isValidIfName,
  namedSchema,
  parseCniArgs,
  parseWithSchema,
  timed,
  type CniRequest,
  type DNS,
} from '../../lib/cni-spec/index.ts';
import { ethMtuProblem } from '../../lib/linux/mtu.ts';
import { pickMac } from './mac.ts';
import { collectVlanTrunk, planPortVlans, type PortVlanPlan, type Problem } from './vlan-plan.ts';

export interface BridgeConf {
  readonly network: string;
  readonly bridge: string;
  /** also true when isDefaultGateway is */
  readonly isGateway: boolean;
  readonly isDefaultGateway: boolean;
  readonly forceAddress: boolean;
  readonly ipMasq: boolean;
  readonly ipMasqBackend?: 'iptables' | 'nftables';
  /** for a bridge we create, both veth ends and the VLAN gateway veth; unset: kernel default */
  readonly mtu?: number;
  readonly hairpinMode: boolean;
  readonly promiscMode: boolean;
  readonly vlan: number;
  readonly vlanTrunk: readonly number[];
  /** set on a bridge we create: a vlan or a vlanTrunk (even empty) is configured */
  readonly vlanFiltering: boolean;
  /** the host veth's VLAN entries; undefined: leave them as the kernel made them */
  readonly portVlans?: PortVlanPlan;
  readonly preserveDefaultVlan: boolean;
  readonly macspoofchk: boolean;
  readonly enableDad: boolean;
  readonly disableContainerInterface: boolean;
  readonly portIsolation: boolean;
  /** ipam.type; undefined: L2 mode (`ipam: {}` or no ipam) */
  readonly ipamType?: string;
  /** `dns` with at least one field set: it replaces the IPAM's DNS in the result */
  readonly dns?: DNS;
  /** the container interface's MAC, normalised */
  readonly mac?: string;
}

const DEFAULT_BRIDGE = 'cni0';

function buildSchema() {
  const bool = z.optional(z.boolean());
  const int = z.optional(z.int());
  const strings = z.optional(z.array(z.string()));
  return z.object({
    bridge: z.optional(z.string()),
    isGateway: bool,
    isDefaultGateway: bool,
    forceAddress: bool,
    ipMasq: bool,
    ipMasqBackend: z.optional(z.string()),
    mtu: int,
    hairpinMode: bool,
    promiscMode: bool,
    vlan: int,
    vlanTrunk: z.optional(z.array(z.object({ id: int, minID: int, maxID: int }))),
    preserveDefaultVlan: bool,
    macspoofchk: bool,
    enabledad: bool,
    disableContainerInterface: bool,
    portIsolation: bool,
    ipam: z.optional(z.object({ type: z.optional(z.string()) })),
    dns: z.optional(z.object({ nameservers: strings, domain: z.optional(z.string()), search: strings, options: strings })),
    args: z.optional(z.object({ cni: z.optional(z.object({ mac: z.optional(z.string()) })) })),
    runtimeConfig: z.optional(z.object({ mac: z.optional(z.string()) })),
  });
}

/** The fields bridge reads, for loadConf and for tests that derive cases from them (e2e/bad-input). */
export const bridgeConfSchema = namedSchema('bridge', buildSchema);

export interface LoadOptions {
  /** ADD also refuses combinations the reference refuses only in ADD (DEL must still clean up) */
  forAdd?: boolean;
}

function deepFreeze<T>(o: T): T {
  if (typeof o === 'object' && o !== null && !Object.isFrozen(o)) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** Throws CniError code 7 naming each field; the message is the reference's for the first. */
export function loadConf(req: CniRequest, o: LoadOptions = {}): BridgeConf {
  return timed('config', () => parseConf(req, o));
}

function parseConf(req: CniRequest, o: LoadOptions): BridgeConf {
  const raw = parseWithSchema(bridgeConfSchema, req.config);
  const problems: Problem[] = [];
  const bridge = raw.bridge ?? DEFAULT_BRIDGE;
  // The kernel's dev_valid_name plus NUL: a bad name is a config error, not a half-done ADD.
  if (!isValidIfName(bridge)) problems.push({ field: 'bridge', msg: `invalid bridge name ${JSON.stringify(bridge)}` });
  const vlan = raw.vlan ?? 0;
  if (vlan < 0 || vlan > 4094) problems.push({ field: 'vlan', msg: `invalid VLAN ID ${vlan} (must be between 0 and 4094)` });
  const trunk = collectVlanTrunk(raw.vlanTrunk ?? []);
  if ('msg' in trunk) problems.push(trunk);
  const vlanTrunk = 'vids' in trunk ? trunk.vids : [];
  const backend = raw.ipMasqBackend;
  if (backend !== undefined && backend !== 'iptables' && backend !== 'nftables') {
    problems.push({ field: 'ipMasqBackend', msg: `unknown ipmasq backend ${JSON.stringify(backend)}` });
  }
  const isGateway = raw.isGateway === true || raw.isDefaultGateway === true;
  const ipamType = raw.ipam?.type || undefined;
  // The VLAN gateway interface is named "<bridge>.<vlan>"; it must fit too.
  if (isGateway && vlan > 0 && ipamType && !isValidIfName(`${bridge}.${vlan}`)) {
    problems.push({ field: 'bridge', msg: `VLAN gateway interface name ${JSON.stringify(`${bridge}.${vlan}`)} is too long` });
  }
  const { MAC: cniArgsMac } = parseCniArgs(req.args, ['MAC']);
  const mac = pickMac({ runtimeConfig: raw.runtimeConfig?.mac, argsCni: raw.args?.cni?.mac, cniArgs: cniArgsMac });
  if (o.forAdd) {
    // The kernel refuses it only when a link is made; DEL ignores the MTU, so it can clean up.
    const mtuProblem = raw.mtu !== undefined ? ethMtuProblem(raw.mtu) : undefined;
    if (mtuProblem) problems.push({ field: 'mtu', msg: mtuProblem });
    if ('msg' in mac) problems.push(mac);
    if (raw.hairpinMode && raw.promiscMode) {
      problems.push({ field: 'hairpinMode', msg: 'cannot set hairpin mode and promiscuous mode at the same time' });
    }
    if (ipamType && raw.disableContainerInterface) {
      problems.push({ field: 'disableContainerInterface', msg: 'cannot use IPAM when DisableContainerInterface flag is set' });
    }
  }
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  const preserveDefaultVlan = raw.preserveDefaultVlan ?? false;
  const portVlans = planPortVlans(vlan, vlanTrunk, preserveDefaultVlan);
  // Only a dns with some field set replaces what the IPAM returned.
  const dns = cleanDNS(raw.dns);
  return deepFreeze({
    network: req.name,
    bridge,
    isGateway,
    isDefaultGateway: raw.isDefaultGateway === true,
    forceAddress: raw.forceAddress === true,
    ipMasq: raw.ipMasq === true,
    ...(backend === 'iptables' || backend === 'nftables' ? { ipMasqBackend: backend } : {}),
    ...(raw.mtu ? { mtu: raw.mtu } : {}),
    hairpinMode: raw.hairpinMode === true,
    promiscMode: raw.promiscMode === true,
    vlan,
    vlanTrunk,
    vlanFiltering: vlan !== 0 || raw.vlanTrunk !== undefined,
    ...(portVlans && { portVlans }),
    preserveDefaultVlan,
    macspoofchk: raw.macspoofchk === true,
    enableDad: raw.enabledad === true,
    disableContainerInterface: raw.disableContainerInterface === true,
    portIsolation: raw.portIsolation === true,
    ...(ipamType && { ipamType }),
    ...(dns && { dns }),
    ...('mac' in mac && mac.mac !== undefined ? { mac: mac.mac } : {}),
  });
}
