// ADD (reference: cmdAdd in https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/firewall.go):
// the accept rules of every prevResult address, the same-bridge isolation when asked for;
// prevResult passes through.
import { CniError, ErrorCode, UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { setupFirewall, teardownFirewall } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';

const log = (line: string): void => void process.stderr.write(`${line}\n`);

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const prev = req.prevResult;
  // The reference's message; its code is 999 (a plain error), ours 7: the config lacks a field (docs/divergences.md).
  if (prev === undefined) throw new CniError(ErrorCode.InvalidNetworkConfig, 'missing prevResult from earlier plugin');
  if (conf.target.addrs.length === 0) return prev;
  const undo = new UndoStack('firewall');
  try {
    const backend = await conf.backend();
    undo.push('firewall rules', () => teardownFirewall(backend, conf.target));
    await setupFirewall(backend, conf.target);
  } catch (err) {
    await undo.unwind(log);
    throw err;
  }
  return prev;
}
