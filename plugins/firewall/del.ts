// DEL (reference: cmdDel in https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/firewall.go):
// needs neither the netns nor, for nftables, prevResult. What prevResult names and what the
// attachment's record lists (record.ts) are removed, so a DEL without prevResult after an
// interrupted ADD leaves nothing (the reference leaves the iptables rules); the record goes
// once every removal succeeded, so a failed DEL can be tried again. The shared chains and the
// same-bridge rules stay, as in the reference: other pods may use them.
import { Failures, type CniRequest } from '../../lib/cni-spec/index.ts';
import { teardownFirewall } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { planDelTeardowns, recordPath } from './record.ts';
import { readRecord, removeRecord } from './record-store.ts';

export async function cmdDel(req: CniRequest): Promise<void> {
  const conf = loadConf(req);
  const path = recordPath(conf.dataDir, conf.target);
  const failures = new Failures();
  for (const step of planDelTeardowns(conf.target, await conf.backend(), readRecord(path))) {
    await failures.attempt(() => teardownFirewall(step.backend, step.target));
  }
  failures.throwIfAny();
  removeRecord(path);
}
