// The parts of the network config host-local reads (https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/host-local/backend/allocator/config.go). IPAM plugins get the
// calling plugin's whole config; everything else in it is ignored.
import * as z from 'zod/mini';
import { namedSchema } from '../cni-spec/index.ts';
import { ipField, requestedIpField, routeSchema, subnetField } from './schema-parts.ts';

function build() {
  const range = z.object({ subnet: z.optional(subnetField()), rangeStart: ipField(), rangeEnd: ipField(), gateway: ipField() });
  const rangeSets = z.optional(z.array(z.array(range)));
  const requested = z.optional(z.array(requestedIpField()));
  return z.object({
    cniVersion: z.optional(z.string()),
    ipam: z.optional(
      z.object({
        type: z.optional(z.string()),
        // The single range of old configs, at the top of `ipam`.
        subnet: z.optional(subnetField()),
        rangeStart: ipField(),
        rangeEnd: ipField(),
        gateway: ipField(),
        ranges: rangeSets,
        routes: z.optional(z.array(routeSchema())),
        dataDir: z.optional(z.string()),
        resolvConf: z.optional(z.string()),
        // Ours, off by default: STATUS fails (code 50) when a range set is full. See cmdStatus.
        failStatusWhenFull: z.optional(z.boolean()),
      }),
    ),
    runtimeConfig: z.optional(z.object({ ipRanges: rangeSets, ips: requested })),
    args: z.optional(z.object({ cni: z.optional(z.object({ ips: requested })) })),
  });
}

export const hostLocalSchema = namedSchema('host-local', build);

export type HostLocalRaw = z.output<ReturnType<typeof build>>;
