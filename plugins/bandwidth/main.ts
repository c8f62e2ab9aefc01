// bandwidth: shapes a container's traffic with tbf on its host veth (ingress) and on an ifb
// that receives the veth's incoming traffic (egress). Chained only; spec 0.3.0 and later,
// as the reference (it needs the host-side interface from prevResult).
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/index.ts';
import { cmdAdd } from './add.ts';
import { cmdCheck } from './check.ts';
import { cmdDel } from './del.ts';
import { cmdGc } from './gc.ts';
import { cmdStatus } from './status.ts';

cniMain({
  about: 'CNI bandwidth plugin (cni-ts v0.1.0)',
  versions: ALL_VERSIONS.filter((v) => v !== '0.1.0' && v !== '0.2.0'),
  add: cmdAdd,
  del: cmdDel,
  check: cmdCheck,
  status: cmdStatus,
  gc: cmdGc,
});
