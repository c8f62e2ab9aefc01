// GC (spec 1.1.0): what belongs to attachments the runtime no longer lists goes: ipMasq rules
// of this network, and (through the IPAM) address allocations. The reference has no GC.
import { Failures, validAttachments, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamGc } from '../../lib/ipam/index.ts';
import { gcIpMasq } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const failures = new Failures();
  // Without a list (cnitool sends none) nothing says which rules are stale: keep them all.
  const valid = validAttachments(req.config);
  if (valid !== undefined) await failures.attempt(() => gcIpMasq(conf.network, valid));
  await failures.attempt(() => ipamGc(conf.ipamType, req));
  failures.throwIfAny();
}
