// loopback: brings `lo` up in the container (reference https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/main/loopback/loopback.go).
// It always works on `lo`, whatever CNI_IFNAME says, and ignores CNI_ARGS.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/index.ts';
import { cmdAdd } from './add.ts';
import { cmdCheck } from './check.ts';
import { cmdDel } from './del.ts';

cniMain({
  about: 'CNI loopback plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: cmdAdd,
  check: cmdCheck,
  del: cmdDel,
  // Nothing to report or collect: loopback keeps no state outside the netns.
  status: async () => {},
  gc: async () => {},
});
