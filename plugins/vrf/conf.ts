// The vrf plugin's configuration (reference VRFNetConf and parseConf,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/main.go): the VRF's
// name and, optionally, its routing table (0 or absent: the first free one). Every verb reads it,
// DEL too, as in the reference.
import * as z from 'zod/mini';
import { CniError, ErrorCode, ifNameProblem, namedSchema, parseWithSchema, timed, type CniRequest } from '../../lib/cni-spec/index.ts';

const TABLE_MAX = 2 ** 32 - 1;

export interface VrfConf {
  readonly vrfName: string;
  /** 0: the VRF gets the lowest table no other VRF of the netns routes through */
  readonly table: number;
}

function buildSchema() {
  return z.object({ vrfname: z.optional(z.string()), table: z.optional(z.int()) });
}

/** vrf's own fields; the bad-input generator derives its cases from it. */
export const vrfConfSchema = namedSchema('vrf', buildSchema);

/** The reference's words for a config without a VRF name. */
export const NO_VRF_NAME = 'configuration is expected to have a valid vrf name';

export function loadConf(req: CniRequest): VrfConf {
  return timed('config', () => {
    const raw = parseWithSchema(vrfConfSchema, req.config);
    const vrfName = raw.vrfname ?? '';
    if (vrfName === '') throw new CniError(ErrorCode.InvalidNetworkConfig, NO_VRF_NAME);
    // The reference hands any other name to the kernel, which answers EINVAL; refused here
    // before the netns is touched.
    const problem = ifNameProblem(vrfName);
    if (problem) throw new CniError(ErrorCode.InvalidNetworkConfig, `invalid vrfname ${JSON.stringify(vrfName)}: ${problem}`, 'vrfname');
    const table = raw.table ?? 0;
    // a uint32 in the reference: anything else fails its json.Unmarshal
    if (table < 0 || table > TABLE_MAX)
      throw new CniError(ErrorCode.InvalidNetworkConfig, `table ${table} is not a routing table id (0 to ${TABLE_MAX})`, 'table');
    return Object.freeze({ vrfName, table });
  });
}
