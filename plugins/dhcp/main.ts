// dhcp: the IPAM plugin that takes addresses from a network's DHCP server, through a daemon that
// holds the leases for the pods' lives (reference:
// https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/ipam/dhcp/main.go).
// `dhcp daemon [flags]` runs that daemon; any other invocation is the plugin.
import { ALL_VERSIONS, cniMain } from '../../lib/cni-spec/entry.ts';

if (process.argv[2] === 'daemon') {
  void import('./daemon/main.ts').then((m) => m.runDaemon(process.argv.slice(3)));
} else {
  cniMain({
    about: 'CNI dhcp plugin (cni-ts v0.1.0)',
    versions: ALL_VERSIONS,
    add: async (req) => (await import('./verbs.ts')).cmdAdd(req),
    del: async (req) => (await import('./verbs.ts')).cmdDel(req),
    check: async (req) => (await import('./verbs.ts')).cmdCheck(req),
    gc: async (req) => (await import('./verbs.ts')).cmdGc(req),
    status: async (req) => (await import('./verbs.ts')).cmdStatus(req),
  });
}
