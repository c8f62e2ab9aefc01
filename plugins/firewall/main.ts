// firewall: lets a pod's addresses through the node's FORWARD path (and, with ingressPolicy
// same-bridge, keeps other bridges out), chained after the plugin that made its interface
// (reference: https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/firewall.go).
// Spec 0.3.0 and later: it needs prevResult.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI firewall plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS.filter((v) => v !== '0.1.0' && v !== '0.2.0'),
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
  status: async (req) => (await import('./status.ts')).cmdStatus(req),
  gc: async (req) => (await import('./gc.ts')).cmdGc(req),
});
