// GC (spec 1.1.0; the reference has none): the rules of containers the runtime no longer lists.
import { validAttachments, type CniRequest } from '../../lib/cni-spec/index.ts';
import { gcPortmap } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  loadConf(req);
  // Without a list (cnitool sends none) nothing says which rules are stale: keep them all.
  const valid = validAttachments(req.config);
  if (valid === undefined) return;
  await gcPortmap(req.name, new Set(valid.map((a) => a.containerID)));
}
