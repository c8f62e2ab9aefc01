// DEL (reference cmdDel, https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/tuning/tuning.go):
// puts back the attributes ADD saved (by this implementation or the reference) and removes
// the saved copy. Sysctls are not restored, as in the reference: they live and die with the
// container's netns.
//
// Like the reference, DEL never fails on a restore: a failure is logged and the saved copy kept
// (a later DEL tries again). Unlike it, the copy is removed when the netns or the interface is
// gone (nothing left to restore): the reference leaves it in dataDir for good.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { getLinkByName, openContainerNetnsIfExists } from '../../lib/linux/index.ts';
import { backupPath, readSaved, removeSaved } from './backup.ts';
import { loadConf } from './conf.ts';
import { restoreAttrs } from './link-attrs.ts';

export async function cmdDel(req: CniRequest, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<void> {
  const conf = loadConf(req, { forDel: true });
  const path = backupPath(conf.dataDir, req.containerId, req.ifname);
  const saved = readSaved(path);
  if (!saved) return;
  const pod = openContainerNetnsIfExists(req.netns);
  try {
    const link = pod && (await getLinkByName(pod, req.ifname));
    if (pod && link) {
      const failed = await restoreAttrs(pod, link.index, saved);
      if (failed.length > 0) {
        log(`tuning: ${failed.join('; ')}`);
        return;
      }
    }
    removeSaved(path);
  } finally {
    pod?.close();
  }
}
