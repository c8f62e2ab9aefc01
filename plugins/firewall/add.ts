// ADD (reference: cmdAdd in https://github.com/containernetworking/plugins/blob/v1.1.1/plugins/meta/firewall/firewall.go):
// the accept rules of every prevResult address, the same-bridge isolation when asked for;
// prevResult passes through. Before the first rule, the attachment's record (record.ts) says
// what is about to be added: a DEL without prevResult (a later plugin's ADD was interrupted)
// then still knows what to remove, and a kill between the record and the rules leaves a
// record whose DEL finds nothing to remove.
import { CniError, ErrorCode, UndoStack, type CniRequest, type Result } from '../../lib/cni-spec/index.ts';
import { setupFirewall, teardownFirewall } from '../../lib/linux/index.ts';
import { loadConf } from './conf.ts';
import { entryOf, mergeEntries, recordPath } from './record.ts';
import { readRecord, removeRecord, writeRecord } from './record-store.ts';

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
    const path = recordPath(conf.dataDir, conf.target);
    // An earlier ADD of this attachment (its DEL never came) keeps what it listed: DEL removes both.
    const before = readRecord(path);
    writeRecord(path, { ...conf.target, entries: mergeEntries(before?.entries ?? [], entryOf(conf.target, backend)) });
    undo.push('firewall record', () => (before === undefined ? removeRecord(path) : writeRecord(path, before)));
    undo.push('firewall rules', () => teardownFirewall(backend, conf.target));
    await setupFirewall(backend, conf.target);
  } catch (err) {
    await undo.unwind(log);
    throw err;
  }
  return prev;
}
