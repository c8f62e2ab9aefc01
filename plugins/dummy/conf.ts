// The dummy plugin's configuration: the reference reads nothing but types.NetConf
// (https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/dummy/dummy.go), and
// needs its ipam.type: the link exists only to carry the IPAM's addresses.
import * as z from 'zod/mini';
import { CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest } from '../../lib/cni-spec/index.ts';

export interface DummyConf {
  readonly ipamType: string;
}

function buildSchema() {
  return z.object({ ipam: z.optional(z.object({ type: z.optional(z.string()) })) });
}

/** dummy's own fields; the bad-input generator derives its cases from it. */
export const dummyConfSchema = namedSchema('dummy', buildSchema);

/** The reference's words for a config without ipam.type (ADD and CHECK; its DEL and STATUS then exec a plugin named ""). */
export const NO_IPAM = 'dummy interface requires an IPAM configuration';

export function loadConf(req: CniRequest): DummyConf {
  return timed('config', () => {
    const raw = parseWithSchema(dummyConfSchema, req.config);
    const ipamType = raw.ipam?.type;
    if (!ipamType) throw new CniError(ErrorCode.InvalidNetworkConfig, NO_IPAM, 'ipam.type: IPAM plugin type is missing');
    return Object.freeze({ ipamType });
  });
}
