// The attachments a GC request says are still in use (GC: https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#cni-operations). The spec text
// of 1.1.0 named the key `cni.dev/attachments`, libcni always sent `cni.dev/valid-attachments`
// and now sends both (https://github.com/containernetworking/cni/issues/1101): read either, preferring the one libcni always used.
import * as z from 'zod/mini';
import { parseWithSchema } from './config.ts';
import { foldKeys } from './fold.ts';

const KEYS = ['cni.dev/valid-attachments', 'cni.dev/attachments'] as const;

export interface Attachment {
  containerID: string;
  ifname: string;
}

let schema: z.ZodMiniArray<z.ZodMiniObject<{ containerID: z.ZodMiniString; ifname: z.ZodMiniString }>> | undefined;

/**
 * The valid attachments, or undefined when the request carries neither key (libcni adds them
 * only when the runtime passed GC args; cnitool passes none). A `null` list is an empty one:
 * libcni marshals a runtime's nil Go slice as `null`, and it has already DELeted every cached
 * attachment of the network for it (GCNetworkList, libcni/api.go), so nothing of the network is
 * valid. A list under the other key wins over a `null`. Malformed entries → code 7.
 */
export function validAttachments(config: Record<string, unknown>): Attachment[] | undefined {
  const found = foldKeys(config, KEYS);
  for (const key of KEYS) {
    const v = found[key];
    if (v === undefined || v === null) continue;
    schema ??= z.array(z.object({ containerID: z.string(), ifname: z.string() }));
    return parseWithSchema(schema, v, `"${key}"`);
  }
  return KEYS.some((key) => found[key] === null) ? [] : undefined;
}
