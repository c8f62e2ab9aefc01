// macvlan: a macvlan link on a node interface (the master) in each pod, with the IPAM's
// addresses or, without IPAM, none
// (reference: https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/macvlan/macvlan.go).
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI macvlan plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
  status: async (req) => (await import('./status.ts')).cmdStatus(req),
  gc: async (req) => (await import('./gc.ts')).cmdGc(req),
});
