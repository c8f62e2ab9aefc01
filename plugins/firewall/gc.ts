// GC (spec 1.1.0; the reference has none): for every record (record.ts) of an attachment the
// runtime no longer lists, what it lists is removed, then the record; the addresses of iptables
// rules and firewalld sources that an attachment still listed holds stay (they name no owner).
// Then the nftables elements of such attachments that have no record (added before records
// were kept) by their comment.
import { Failures, validAttachments, type CniRequest } from '../../lib/cni-spec/index.ts';
import { firewallNftKey, gcFirewall, teardownFirewall } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { attachmentKey, planGcTeardowns } from './record.ts';
import { listAllRecords, listRecords, removeRecord } from './record-store.ts';

export async function cmdGc(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  // Without a list (cnitool sends none) nothing says which attachments are gone: keep them all.
  const valid = validAttachments(req.config);
  if (valid === undefined) return;
  const validKeys = new Set(valid.map((a) => attachmentKey(a.containerID, a.ifname)));
  const gone = listRecords(conf.dataDir, req.name).filter((r) => !validKeys.has(attachmentKey(r.record.containerId, r.record.ifname)));
  const goneSet = new Set(gone.map((r) => r.path));
  const stays = listAllRecords(conf.dataDir).filter((r) => !goneSet.has(r.path));
  const failures = new Failures();
  for (const { path, record } of gone) {
    const before = new Failures();
    for (const step of planGcTeardowns(
      conf.target,
      record,
      stays.map((r) => r.record),
    ))
      await before.attempt(() => teardownFirewall(step.backend, step.target));
    await failures.attempt(() => {
      before.throwIfAny();
      removeRecord(path);
    });
  }
  await failures.attempt(() =>
    gcFirewall(req.name, new Set(valid.map((a) => firewallNftKey({ network: req.name, ifname: a.ifname, containerId: a.containerID })))),
  );
  failures.throwIfAny();
}
