// GC (spec 1.1.0; the reference has none): the nftables elements of attachments the runtime no
// longer lists. iptables rules and firewalld sources name an address only, not whose it is,
// so nothing there can be told stale.
import { validAttachments, type CniRequest } from '../../lib/cni-spec/index.ts';
import { firewallNftKey, gcFirewall } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  loadConf(req);
  // Without a list (cnitool sends none) nothing says which elements are stale: keep them all.
  const valid = validAttachments(req.config);
  if (valid === undefined) return;
  await gcFirewall(req.name, new Set(valid.map((a) => firewallNftKey({ network: req.name, ifname: a.ifname, containerId: a.containerID }))));
}
