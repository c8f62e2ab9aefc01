// ipvlan: an ipvlan link on a node interface (the master) in each pod, sharing the master's
// MAC, with the IPAM's addresses or, chained, the previous plugin's
// (reference: https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/ipvlan/ipvlan.go).
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI ipvlan plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
  status: async (req) => (await import('./status.ts')).cmdStatus(req),
  gc: async (req) => (await import('./gc.ts')).cmdGc(req),
});
