// The link attributes ADD found before changing them, saved for DEL, in the reference's file and
// format (createBackup/restoreBackup in plugins/meta/tuning/tuning.go, v1.1.1):
// <dataDir>/<containerID>_<ifname>.json, Go's MarshalIndent with one space, only the attributes
// the config changes. Either implementation's DEL restores what the other's ADD saved.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { goJSON } from '../../lib/cni-spec/go-json.ts';

/** configToRestore of the reference, keys in its order. */
export interface SavedAttrs {
  mac?: string;
  promisc?: boolean;
  mtu?: number;
  allmulti?: boolean;
  txQLen?: number;
}

export const backupPath = (dataDir: string, containerId: string, ifname: string): string => join(dataDir, `${containerId}_${ifname}.json`);

/** Keys in the reference's struct order, empty ones left out as its omitempty does. */
export function encodeSaved(s: SavedAttrs): string {
  const ordered: SavedAttrs = {};
  if (s.mac) ordered.mac = s.mac;
  if (s.promisc !== undefined) ordered.promisc = s.promisc;
  if (s.mtu) ordered.mtu = s.mtu;
  if (s.allmulti !== undefined) ordered.allmulti = s.allmulti;
  if (s.txQLen !== undefined) ordered.txQLen = s.txQLen;
  return goJSON(ordered, ' ');
}

/** What a saved file says. A file that is no JSON object restores nothing, as in the reference. */
export function decodeSaved(text: string): SavedAttrs {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
  const o = v as Record<string, unknown>;
  // Go's decoder matches keys without regard to case.
  const get = (k: string): unknown => o[Object.keys(o).find((x) => x.toLowerCase() === k.toLowerCase()) ?? k];
  const out: SavedAttrs = {};
  const [mac, promisc, mtu, allmulti, txQLen] = ['mac', 'promisc', 'mtu', 'allmulti', 'txQLen'].map(get);
  if (typeof mac === 'string' && mac !== '') out.mac = mac;
  if (typeof promisc === 'boolean') out.promisc = promisc;
  if (typeof mtu === 'number' && Number.isInteger(mtu) && mtu > 0) out.mtu = mtu;
  if (typeof allmulti === 'boolean') out.allmulti = allmulti;
  if (typeof txQLen === 'number' && Number.isInteger(txQLen) && txQLen >= 0) out.txQLen = txQLen;
  return out;
}

export function writeSaved(path: string, dataDir: string, s: SavedAttrs): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(path, encodeSaved(s), { mode: 0o600 });
}

export function readSaved(path: string): SavedAttrs | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return decodeSaved(text);
}

export function removeSaved(path: string): void {
  rmSync(path, { force: true });
}
