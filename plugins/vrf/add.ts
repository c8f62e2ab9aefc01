// ADD (reference cmdAdd, https://github.com/containernetworking/plugins/blob/v1.9.1/plugins/meta/vrf/main.go):
// the VRF (found, or made with the configured or a free table), then prevResult's interface
// enslaved to it with its routes in the VRF's table. prevResult passes through. A failing ADD
// releases the interface and removes a VRF it made.
import { CniError, ErrorCode, UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { openContainerNetns } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { enslave } from './enslave.ts';
import { ensureVrf } from './vrf-link.ts';

export const NO_PREV_RESULT = 'missing prevResult from earlier plugin';

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const prev = req.prevResult;
  if (!prev) throw new CniError(ErrorCode.InvalidNetworkConfig, NO_PREV_RESULT);
  const pod = openContainerNetns(req);
  const undo = new UndoStack('vrf');
  try {
    const vrf = await ensureVrf(pod, conf.vrfName, conf.table, undo);
    await enslave(pod, vrf, req.ifname, undo);
    return prev;
  } catch (err) {
    await undo.unwind();
    throw new Error(`cmdAdd failed: ${(err as Error).message}`, { cause: err });
  } finally {
    pod.close();
  }
}
