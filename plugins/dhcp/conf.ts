// The dhcp IPAM plugin's configuration: the `ipam` section of the plugin that delegates to it
// (the reference's IPAMConfig, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/ipam/dhcp/main.go).
// The options are parsed here too, so a bad option name is code 7 from the plugin, before the daemon is asked.
import { isAbsolute } from 'node:path';
import * as z from 'zod/mini';
import { CniError, ErrorCode, namedSchema, parseWithSchema, timed, type CniRequest } from '../../lib/cni-spec/index.ts';
import { DhcpOptionError, prepareOptions, type ProvideOption, type RequestOption } from '../../lib/dhcp/options.ts';

export const DEFAULT_SOCKET_PATH = '/run/cni/dhcp.sock';

export interface DhcpConf {
  readonly socketPath: string;
  readonly provide: ProvideOption[];
  readonly request: RequestOption[];
  readonly priority: number;
}

function buildSchema() {
  const provide = z.object({ option: z.string(), value: z.optional(z.string()), fromArg: z.optional(z.string()) });
  const request = z.object({ option: z.optional(z.string()), skipDefault: z.optional(z.boolean()) });
  return z.object({
    ipam: z.optional(
      z.object({
        daemonSocketPath: z.optional(z.string()),
        provide: z.optional(z.nullable(z.array(provide))),
        request: z.optional(z.nullable(z.array(request))),
        priority: z.optional(z.int()),
      }),
    ),
  });
}

/** dhcp's own fields; the bad-input generator derives its cases from it. */
export const dhcpConfSchema = namedSchema('dhcp', buildSchema);

export function loadConf(req: CniRequest): DhcpConf {
  return timed('config', () => {
    const ipam = parseWithSchema(dhcpConfSchema, req.config).ipam ?? {};
    const socketPath = ipam.daemonSocketPath || DEFAULT_SOCKET_PATH;
    if (!isAbsolute(socketPath)) throw new CniError(ErrorCode.InvalidNetworkConfig, `daemonSocketPath ${JSON.stringify(socketPath)} is not an absolute path`);
    const provide = ipam.provide ?? [];
    const request = ipam.request ?? [];
    // Only what ADD sends: a DEL must not fail on options it does not use.
    try {
      if (req.command === 'ADD') prepareOptions(req.args, provide, request);
    } catch (err) {
      if (err instanceof DhcpOptionError) throw new CniError(ErrorCode.InvalidNetworkConfig, err.message, undefined, { cause: err });
      throw err;
    }
    return Object.freeze({ socketPath, provide, request, priority: ipam.priority ?? 0 });
  });
}
