// static IPAM (reference https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/ipam/static/main.go): returns the configured addresses, routes and DNS; keeps no
// state, so DEL, GC and STATUS have nothing to do. The code lives in lib/ipam, where bridge
// runs it in-process when this executable is on CNI_PATH.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI static plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('../../lib/ipam/static.ts')).cmdAdd(req),
  del: async (req) => (await import('../../lib/ipam/static.ts')).cmdDel(req),
  check: async (req) => (await import('../../lib/ipam/static.ts')).cmdCheck(req),
});
