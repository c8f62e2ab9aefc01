// The network-config fields every plugin shares, typed as the reference decodes them
// (containernetworking/cni pkg/types NetConf, IPAM, DNS, GCAttachment; `args` and
// `runtimeConfig` are structs in every reference plugin that reads them). Go's decoder refuses
// a wrong JSON type for any of them before the plugin does anything, so the dispatcher checks
// them for every plugin before any handler runs. A JSON null is "absent", as for Go.
import * as z from 'zod/mini';
import { namedSchema } from './named-schema.ts';

function build() {
  const str = z.optional(z.string());
  const strs = z.optional(z.array(z.string()));
  const attachments = z.optional(z.array(z.object({ containerID: str, ifname: str })));
  const object = z.optional(z.record(z.string(), z.unknown()));
  return z.object({
    cniVersion: str,
    name: str,
    type: str,
    capabilities: z.optional(z.record(z.string(), z.boolean())),
    ipam: z.optional(z.object({ type: str })),
    dns: z.optional(z.object({ nameservers: strs, domain: str, search: strs, options: strs })),
    args: object,
    runtimeConfig: object,
    prevResult: object,
    'cni.dev/valid-attachments': attachments,
    'cni.dev/attachments': attachments,
  });
}

/** The shared fields' schema; the bad-input generator derives its cases from it too. */
export const commonConfSchema = namedSchema('common', build);
