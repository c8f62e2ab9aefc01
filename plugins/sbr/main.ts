// sbr: source-based routing for the interface of prevResult, a routing table per address and
// a rule "from <address> lookup <table>", so replies leave by the interface they came in on
// (reference: https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/sbr/main.go).
// Chained only. The reference has no GC or STATUS: they are the dispatcher's no-ops.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI sbr plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
});
