// vrf: puts the container interface of a previous plugin into a VRF of the pod netns, made on
// first use and removed with its last member (reference:
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/main.go).
// Chained only. The reference has no GC or STATUS (FIXMEs): the dispatcher's no-ops answer them.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';
import { compareVersions } from '../../lib/cni-spec/versions.ts';

cniMain({
  about: 'CNI vrf plugin (cni-ts v0.1.0)',
  // version.VersionsStartingFrom("0.3.1")
  versions: ALL_VERSIONS.filter((v) => compareVersions(v, '0.3.1') >= 0),
  add: async (req) => (await import('./add.ts')).cmdAdd(req),
  del: async (req) => (await import('./del.ts')).cmdDel(req),
  check: async (req) => (await import('./check.ts')).cmdCheck(req),
});
