// The ptp plugin's configuration (reference NetConf in plugins/main/ptp/ptp.go, v1.1.1;
// ipMasqBackend as bridge reads it), validated before anything touches the host.
import * as z from 'zod/mini';
import { cleanDNS, CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest, type DNS } from '../../lib/cni-spec/index.ts';
import { ethMtuProblem } from '../../lib/linux/mtu.ts';

export interface PtpConf {
  readonly network: string;
  readonly ipMasq: boolean;
  readonly ipMasqBackend?: 'iptables' | 'nftables';
  /** both veth ends; unset: kernel default */
  readonly mtu?: number;
  readonly ipamType: string;
  /** `dns` with at least one field set: it replaces the IPAM's DNS in the result */
  readonly dns?: DNS;
}

function buildSchema() {
  const strings = z.optional(z.array(z.string()));
  return z.object({
    ipMasq: z.optional(z.boolean()),
    ipMasqBackend: z.optional(z.string()),
    mtu: z.optional(z.int()),
    ipam: z.optional(z.object({ type: z.optional(z.string()) })),
    dns: z.optional(z.object({ nameservers: strings, domain: z.optional(z.string()), search: strings, options: strings })),
  });
}

/** ptp's own fields; the bad-input generator derives its cases from it. */
export const ptpConfSchema = namedSchema('ptp', buildSchema);

export interface LoadOptions {
  /** ADD also refuses an MTU the kernel would refuse; DEL must still clean up after such an ADD */
  forAdd?: boolean;
}

export function loadConf(req: CniRequest, o: LoadOptions = {}): PtpConf {
  return timed('config', () => parseConf(req, o));
}

function parseConf(req: CniRequest, o: LoadOptions): PtpConf {
  const raw = parseWithSchema(ptpConfSchema, req.config);
  const problems: { field: string; msg: string }[] = [];
  // The kernel refuses it only when the veth is made, after IPAM has allocated (and host-local
  // has written last_reserved_ip): refused here, an ADD leaves nothing.
  const mtuProblem = o.forAdd && raw.mtu !== undefined ? ethMtuProblem(raw.mtu) : undefined;
  if (mtuProblem) problems.push({ field: 'mtu', msg: mtuProblem });
  const backend = raw.ipMasqBackend;
  if (backend !== undefined && backend !== 'iptables' && backend !== 'nftables') {
    problems.push({ field: 'ipMasqBackend', msg: `unknown ipmasq backend ${JSON.stringify(backend)}` });
  }
  const ipamType = raw.ipam?.type;
  // The reference execs a plugin named "" and fails with "no plugin name provided".
  if (!ipamType) problems.push({ field: 'ipam.type', msg: 'IPAM plugin type is missing' });
  if (problems.length > 0) {
    throw new CniError(ErrorCode.InvalidNetworkConfig, problems[0]?.msg ?? 'invalid network config', problems.map((p) => `${p.field}: ${p.msg}`).join('; '));
  }
  const dns = cleanDNS(raw.dns);
  return Object.freeze({
    network: req.name,
    ipMasq: raw.ipMasq === true,
    ...(backend === 'iptables' || backend === 'nftables' ? { ipMasqBackend: backend } : {}),
    ...(raw.mtu ? { mtu: raw.mtu } : {}),
    ipamType: ipamType ?? '',
    ...(dns && { dns }),
  });
}
