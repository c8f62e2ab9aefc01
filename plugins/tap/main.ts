// tap: a persistent tap device in the container's netns, for a VM or a user-space stack in the
// pod to attach to; optionally a port of a bridge there, optionally with the IPAM's addresses
// (reference: https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/tap/tap.go).
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI tap plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
  status: async (req) => (await import('./status.ts')).cmdStatus(req),
  gc: async (req) => (await import('./gc.ts')).cmdGc(req),
});
