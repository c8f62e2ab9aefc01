// bandwidth: shapes a container's traffic with tbf on its host veth (ingress) and on an ifb
// that receives the veth's incoming traffic (egress). Chained only; spec 0.3.0 and later,
// as the reference (it needs the host-side interface from prevResult).
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI bandwidth plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS.filter((v) => v !== '0.1.0' && v !== '0.2.0'),
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
  status: async (req) => (await import('./status.ts')).cmdStatus(req),
  gc: async (req) => (await import('./gc.ts')).cmdGc(req),
});
