// GC (spec 1.1.0; the reference has none): deletes the ifbs of this network whose container is
// not among the valid attachments. An ifb's name is a one-way hash of network and container, so
// the name cannot say which network made it; ADD therefore labels each ifb with an alias naming
// its network (ifb-name.ts), and GC only touches ifbs with this network's alias. Ifbs without
// it (made by the Go plugin, or by another network) are left alone.
import { Failures, validAttachments, type CniRequest } from '../../lib/cni-spec/index.ts';
import { deleteLink, listIfbs, Netns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { ifbAlias, ifbName } from './ifb-name.ts';

const IFB_NAME = /^bwp[0-9a-f]{12}$/;

export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  // Without a list (cnitool sends none) nothing says which ifbs are stale: keep them all.
  const valid = validAttachments(req.config);
  if (valid === undefined) return;
  const keep = new Set(valid.map((a) => ifbName(conf.network, a.containerID)));
  const alias = ifbAlias(conf.network);
  const host = Netns.host();
  const failures = new Failures();
  try {
    for (const ifb of await listIfbs(host)) {
      if (ifb.alias !== alias || !IFB_NAME.test(ifb.name) || keep.has(ifb.name)) continue;
      await failures.attempt(() => deleteLink(host, ifb.index));
    }
  } finally {
    host.close();
  }
  failures.throwIfAny();
}
