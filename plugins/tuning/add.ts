// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/tuning/tuning.go):
// the sysctls, then the saved copy of the attributes about to change, then the attributes.
// prevResult passes through, with the container interface's new MAC. A failing ADD puts back
// every sysctl and attribute it changed and removes the saved copy.
import { CniError, ErrorCode, UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { openContainerNetns, readSysctl, writeSysctl, type Netns } from '../../lib/linux/index.ts';
import { backupPath, removeSaved, writeSaved } from './backup.ts';
import { changesLink, loadConf, type TuningConf } from './conf.ts';
import { applyAttrs, attrsToSave, containerLink, restoreAttrs } from './link-attrs.ts';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const prev = req.prevResult;
  if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, 'Required prevResult missing');
  const pod = openContainerNetns(req);
  const undo = new UndoStack('tuning');
  try {
    setSysctls(pod, conf, undo);
    if (changesLink(conf)) await tuneLink(pod, req, conf, undo);
    return withMac(prev, req.ifname, conf.mac);
  } catch (err) {
    await undo.unwind();
    throw err;
  } finally {
    pod.close();
  }
}

function setSysctls(pod: Netns, conf: TuningConf, undo: UndoStack): void {
  for (const s of conf.sysctls) {
    const before = readSysctl(pod, s.path);
    writeSysctl(pod, s.path, s.value);
    undo.push(`sysctl ${s.key}`, () => writeSysctl(pod, s.path, before));
  }
}

async function tuneLink(pod: Netns, req: CniRequest, conf: TuningConf, undo: UndoStack): Promise<void> {
  const link = await containerLink(pod, req.ifname);
  const saved = attrsToSave(conf, link);
  const path = backupPath(conf.dataDir, req.containerId, req.ifname);
  writeSaved(path, conf.dataDir, saved);
  undo.push('saved attributes', () => removeSaved(path));
  undo.push('link attributes', async () => {
    const failed = await restoreAttrs(pod, link.index, saved);
    if (failed.length > 0) throw new Error(failed.join('; '));
  });
  await applyAttrs(pod, link.index, conf);
}

/** The reference updates every interface of prevResult with the container interface's name. */
function withMac(prev: Result, ifname: string, mac: string | undefined): Result {
  if (mac === undefined || !prev.interfaces) return prev;
  return { ...prev, interfaces: prev.interfaces.map((i) => (i.name === ifname ? { ...i, mac } : i)) };
}
