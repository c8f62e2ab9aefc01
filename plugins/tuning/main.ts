// tuning: sysctls and link attributes (MAC, MTU, promiscuous, all-multicast, queue length) of
// the container interface, restored on DEL
// (reference: https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/tuning/tuning.go).
// Chained only. Nothing to collect or report: GC and STATUS are the dispatcher's no-ops.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI tuning plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
});
