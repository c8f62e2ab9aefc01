// host-local IPAM (reference https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/host-local/main.go): addresses from configured ranges, one file per address in
// <dataDir>/<network>, compatible with the reference's store. The allocator lives in
// lib/ipam, where bridge runs the same code in-process when this executable is on CNI_PATH.
// Beyond the reference: GC releases allocations of attachments the runtime no longer lists,
// and STATUS reports code 50 when a range set has no free address.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI host-local plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('../../lib/ipam/host-local.ts')).cmdAdd(req),
  del: async (req) => (await import('../../lib/ipam/host-local.ts')).cmdDel(req),
  check: async (req) => (await import('../../lib/ipam/host-local.ts')).cmdCheck(req),
  gc: async (req) => (await import('../../lib/ipam/host-local.ts')).cmdGc(req),
  status: async (req) => (await import('../../lib/ipam/host-local.ts')).cmdStatus(req),
});
