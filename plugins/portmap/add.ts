// ADD (reference: cmdAdd in https://github.com/containernetworking/plugins/blob/v1.9.0/plugins/meta/portmap/main.go): rules for every mapping, then the UDP conntrack flush and
// route_localnet; prevResult passes through. No mappings: no netfilter work at all.
import { CniError, ErrorCode, UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { setupPortmap, teardownPortmap } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { enableRouteLocalnet, flushStaleUdp } from './side-effects.ts';

const log = (line: string): void => void process.stderr.write(`${line}\n`);

export async function cmdAdd(req: CniRequest): Promise<Result> {
  const conf = loadConf(req);
  const prev = req.prevResult;
  // The reference's message; its code is 999 (a plain error), ours 7: the config lacks a field (docs/divergences.md).
  if (prev === undefined) throw new CniError(ErrorCode.InvalidNetworkConfig, 'must be called as chained plugin');
  const { target, addrs } = conf;
  if (target.mappings.length === 0 || addrs.length === 0) return prev;
  const undo = new UndoStack('portmap');
  try {
    const backend = conf.backend();
    undo.push('port mapping rules', () => teardownPortmap(target.network, target.containerId, { backend }));
    await setupPortmap(backend, target, addrs);
    await flushStaleUdp(
      target,
      addrs.map((a) => a.family),
      log,
    );
    const v4 = addrs.find((a) => a.family === 4);
    if (target.snat && v4) await enableRouteLocalnet(v4.ip);
  } catch (err) {
    await undo.unwind(log);
    throw err;
  }
  return prev;
}
