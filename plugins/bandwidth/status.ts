// STATUS (spec 1.1.0): nothing of ours can run out; the config must still be valid.
import type { CniRequest } from '../../lib/cni-spec/index.ts';
import { loadConf } from './conf.ts';

export async function cmdStatus(req: CniRequest): Promise<void> {
  loadConf(req);
}
