// The vlan plugin's configuration (reference NetConf and loadConf,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/vlan/vlan.go), validated
// before anything touches the node. The master's MTU bound needs the master itself: ADD checks it
// once the master is found (masterMtuProblem); DEL never needs the master, so a DEL after the
// master is gone still releases the addresses (the reference's loadConf looks it up for DEL too).
import * as z from 'zod/mini';
import { cleanDNS, CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest, type DNS } from '../../lib/cni-spec/index.ts';

export interface VlanConf {
  readonly master: string;
  /** 0…4094 */
  readonly vlanId: number;
  /** 0: the master's */
  readonly mtu: number;
  /** the master lives in the container's netns, not the node's */
  readonly linkInContainer: boolean;
  readonly ipamType: string;
  /** the config's `dns`: the reference puts it in the result in place of the IPAM's */
  readonly dns?: DNS;
}

function buildSchema() {
  const strings = z.optional(z.array(z.string()));
  return z.object({
    master: z.optional(z.string()),
    vlanId: z.optional(z.int()),
    mtu: z.optional(z.int()),
    linkInContainer: z.optional(z.boolean()),
    ipam: z.optional(z.object({ type: z.optional(z.string()) })),
    dns: z.optional(z.object({ nameservers: strings, domain: z.optional(z.string()), search: strings, options: strings })),
  });
}

/** vlan's own fields; the bad-input generator derives its cases from it. */
export const vlanConfSchema = namedSchema('vlan', buildSchema);

export function loadConf(req: CniRequest): VlanConf {
  return timed('config', () => parseConf(req));
}

function parseConf(req: CniRequest): VlanConf {
  const raw = parseWithSchema(vlanConfSchema, req.config);
  const problems: { field: string; msg: string }[] = [];
  const master = raw.master ?? '';
  const vlanId = raw.vlanId ?? 0;
  const mtu = raw.mtu ?? 0;
  if (master === '') problems.push({ field: 'master', msg: '"master" field is required. It specifies the host interface name to create the VLAN for' });
  // The reference's bound and its message (which says 4095) as they are.
  if (vlanId < 0 || vlanId > 4094) problems.push({ field: 'vlanId', msg: `invalid VLAN ID ${vlanId} (must be between 0 and 4095 inclusive)` });
  if (mtu < 0) problems.push({ field: 'mtu', msg: `invalid MTU ${mtu}, must be [0, master MTU]` });
  const ipamType = raw.ipam?.type;
  // The reference execs a plugin named "" and fails with "no plugin name provided".
  if (!ipamType) problems.push({ field: 'ipam.type', msg: 'IPAM plugin type is missing' });
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  const dns = cleanDNS(raw.dns);
  return Object.freeze({ master, vlanId, mtu, linkInContainer: raw.linkInContainer === true, ipamType: ipamType ?? '', ...(dns && { dns }) });
}

/** The reference's MTU rule, once the master's MTU is known: 0 (the master's) up to the master's. */
export function masterMtuProblem(mtu: number, masterMtu: number): string | undefined {
  return mtu < 0 || mtu > masterMtu ? `invalid MTU ${mtu}, must be [0, master MTU(${masterMtu})]` : undefined;
}
