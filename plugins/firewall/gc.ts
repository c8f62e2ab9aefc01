// GC (spec 1.1.0; the reference has none): for every record (record.ts) of an attachment the
// runtime no longer lists, what it lists is removed, then the record; the addresses of iptables
// rules and firewalld sources that a listed attachment's record holds stay (they name no
// owner). Then the left-overs of killed record writes, and the nftables elements of gone
// attachments that have no record (added before records were kept), found by their comment.
import { Failures, validAttachments, type CniRequest } from '../../lib/cni-spec/index.ts';
import { firewallNftKey, gcFirewall, teardownFirewall, type FirewallTarget } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { attachmentKey, planGcTeardowns, type FirewallRecord } from './record.ts';
import { listAllRecords, listLeftovers, listRecords, removeLeftover, removeRecord } from './record-store.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  // Without a list (cnitool sends none) nothing says which attachments are gone: keep them all.
  const valid = validAttachments(req.config);
  if (valid === undefined) return;
  const validKeys = new Set(valid.map((a) => attachmentKey(a.containerID, a.ifname)));
  const isValid = (a: { containerId: string; ifname: string }): boolean => validKeys.has(attachmentKey(a.containerId, a.ifname));
  const gone = listRecords(conf.dataDir, req.name).filter((r) => !isValid(r.record));
  const gonePaths = new Set(gone.map((r) => r.path));
  const stays = listAllRecords(conf.dataDir)
    .filter((r) => !gonePaths.has(r.path))
    .map((r) => r.record);
  const failures = new Failures();
  for (const { path, record } of gone) await failures.attempt(() => removeGone(conf.target, path, record, stays));
  // A write killed before its rename left only its temporary file, and no rule yet.
  for (const left of listLeftovers(conf.dataDir, req.name)) if (!isValid(left)) await failures.attempt(() => removeLeftover(left.path));
  const validNftKeys = new Set(valid.map((a) => firewallNftKey({ network: req.name, ifname: a.ifname, containerId: a.containerID })));
  await failures.attempt(() => gcFirewall(req.name, validNftKeys));
  failures.throwIfAny();
}

/** A gone attachment's rules, then (when they all went) its record. */
async function removeGone(base: FirewallTarget, path: string, record: FirewallRecord, stays: readonly FirewallRecord[]): Promise<void> {
  const failures = new Failures();
  for (const step of planGcTeardowns(base, record, stays)) await failures.attempt(() => teardownFirewall(step.backend, step.target));
  failures.throwIfAny();
  removeRecord(path);
}
