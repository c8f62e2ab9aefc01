// STATUS (spec 1.1.0; the reference has none): the backend this config would use must be
// there, else ADDs would fail; code 50 tells the runtime not to schedule pods yet.
import { CniError, ErrorCode, type CniRequest } from '../../lib/cni-spec/index.ts';
import { firewallBackendProblem } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

export async function cmdStatus(req: CniRequest): Promise<void> {
  const problem = await firewallBackendProblem(await loadConf(req).backend());
  if (problem !== undefined) throw new CniError(ErrorCode.PluginNotAvailable, problem);
}
