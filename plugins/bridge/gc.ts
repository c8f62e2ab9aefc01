// GC (spec 1.1.0): what belongs to attachments the runtime no longer lists goes: ipMasq
// rules and macspoofchk chains of this network, and (through the IPAM) address allocations.
// The reference has no GC.
import { Failures, validAttachments, type CniRequest } from '../../lib/cni-spec/index.ts';
import { ipamGc } from '../../lib/ipam/index.ts';
import { gcIpMasq, gcMacSpoofCheck } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const ipamType = conf.ipamType;
  const failures = new Failures();
  // Without a list (cnitool sends none) nothing says which rules are stale: keep them all.
  const valid = validAttachments(req.config);
  if (valid !== undefined) {
    // Also with macspoofchk off now: an earlier config of the network may have made them.
    await failures.attempt(() => gcMacSpoofCheck(conf.network, valid));
    if (ipamType) await failures.attempt(() => gcIpMasq(conf.network, valid));
  }
  if (ipamType) await failures.attempt(() => ipamGc(ipamType, req));
  failures.throwIfAny();
}
