// DEL (reference: cmdDel in https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/firewall.go):
// needs neither the netns nor, for nftables, prevResult. The shared chains and the same-bridge
// rules stay, as in the reference: other pods may use them.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { teardownFirewall } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  await teardownFirewall(await conf.backend(), conf.target);
}
