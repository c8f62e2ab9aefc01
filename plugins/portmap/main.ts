// portmap: forwards host ports to a container (hostPort), chained after the plugin that made
// its interface (reference: https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/meta/portmap/main.go).
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/index.ts';
import { cmdAdd } from './add.ts';
import { cmdCheck } from './check.ts';
import { cmdDel } from './del.ts';
import { cmdGc } from './gc.ts';
import { cmdStatus } from './status.ts';

cniMain({
  about: 'CNI portmap plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS,
  add: cmdAdd,
  del: cmdDel,
  check: cmdCheck,
  status: cmdStatus,
  gc: cmdGc,
});
