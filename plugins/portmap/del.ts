// DEL (reference: cmdDel in https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/meta/portmap/main.go): needs neither prevResult nor the netns. Without mappings
// the iptables backend does nothing (the reference's fix for iptables lock contention,
// plugins#510), the nftables backend removes what this network's markers prove is the
// container's, after a look over nfnetlink that costs no process; with mappings, the configured
// backend is cleaned (as the reference does; GC cleans both) in the families prevResult names,
// both without it; then stale UDP conntrack entries go.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { teardownPortmap, teardownPortmapWithoutMappings } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { flushStaleUdp } from './side-effects.ts';

const log = (line: string): void => void process.stderr.write(`${line}\n`);

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const { target } = conf;
  if (target.mappings.length === 0) {
    if (conf.backend() === 'nftables') await teardownPortmapWithoutMappings(target.network, target.containerId);
    return;
  }
  const families = conf.addrs.length > 0 ? conf.addrs.map((a) => a.family) : undefined;
  const failures = new Failures();
  await failures.attempt(() => teardownPortmap(target.network, target.containerId, { backend: conf.backend(), target, ...(families && { families }) }));
  await failures.attempt(() => flushStaleUdp(target, families ?? [4, 6], log));
  failures.throwIfAny();
}
