// The sbr plugin's configuration (reference PluginConf and parseConfig,
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/sbr/main.go): only
// `table`, the one routing table every rule points at instead of a table per address picked
// from 100 up.
import * as z from 'zod/mini';
import { CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest } from '../../lib/cni-spec/index.ts';

/** FRA_TABLE is a u32; 0 (RT_TABLE_UNSPEC) names no table. */
const TABLE_MAX = 2 ** 32 - 1;

export interface SbrConf {
  /** absent: a table per address, the first free ones from 100 */
  readonly table?: number;
}

function buildSchema() {
  return z.object({ table: z.optional(z.nullable(z.int())) });
}

/** sbr's own fields; the bad-input generator derives its cases from it. */
export const sbrConfSchema = namedSchema('sbr', buildSchema);

export function loadConf(req: CniRequest): SbrConf {
  return timed('config', () => {
    const raw = parseWithSchema(sbrConfSchema, req.config);
    const table = raw.table ?? undefined;
    if (table !== undefined && (table < 1 || table > TABLE_MAX)) {
      throw new CniError(ErrorCode.InvalidNetworkConfig, 'invalid network config', `table: must be a routing table id from 1 to ${TABLE_MAX}, not ${table}`);
    }
    return Object.freeze(table === undefined ? {} : { table });
  });
}
