// vlan: an 802.1Q sub-interface of a node link (the master), given to the container as its
// interface (reference: https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/main/vlan/vlan.go).
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI vlan plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
  status: async (req) => (await import('./status.ts')).cmdStatus(req),
  gc: async (req) => (await import('./gc.ts')).cmdGc(req),
});
