// GC for host-local (https://github.com/containernetworking/cni/blob/spec-v1.1.0/SPEC.md#cni-operations).
// The reference has none: https://github.com/containernetworking/plugins/issues/1047,
// https://github.com/containernetworking/plugins/pull/1289.
// Pure choice of what to release; the caller removes the files under the lock.
import type { Attachment } from '../cni-spec/index.ts';
import { parseOwner, type Allocation } from './store.ts';

/**
 * The allocations whose attachment is not in `valid`. An old-format file names only a
 * container, so it stays while any valid attachment has that container id. Every address
 * file of the network's directory counts, also addresses outside today's ranges: they
 * belong to this network all the same.
 */
export function planGc(all: readonly Allocation[], valid: readonly Attachment[]): Allocation[] {
  const attachments = new Set(valid.map((a) => `${a.containerID.trim()}\n${a.ifname}`));
  const containers = new Set(valid.map((a) => a.containerID.trim()));
  return all.filter((a) => {
    const owner = parseOwner(a.key);
    if (owner.ifname === undefined) return !containers.has(owner.containerId);
    return !attachments.has(`${owner.containerId}\n${owner.ifname}`);
  });
}
