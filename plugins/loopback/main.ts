// loopback: brings `lo` up in the container (reference https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/loopback/loopback.go).
// It always works on `lo`, whatever CNI_IFNAME says, and ignores CNI_ARGS.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

cniMain({
  about: 'CNI loopback plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  // Nothing to report or collect: loopback keeps no state outside the netns.
  status: async () => {},
  gc: async () => {},
});
