// The records of record.ts on disk: one file per attachment, root's alone (0700 directories,
// 0600 files), each written whole to a temporary name, synced and renamed into place, so a
// process killed while writing leaves the old record or the new one, never half of one.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { attachmentOfName, decodeRecord, encodeRecord, isRecordName, recordDir, tmpPathOf, type FirewallRecord } from './record.ts';

const isMissing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** The record at `path`; undefined when there is none, or the file holds no record. */
export function readRecord(path: string): FirewallRecord | undefined {
  try {
    return decodeRecord(readFileSync(path, 'utf8'));
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

export function writeRecord(path: string, r: FirewallRecord): void {
  const dir = dirname(path);
  // One name per attachment (the runtime runs one verb of an attachment at a time), so the
  // left-over of a killed write is found again: removed here, by DEL and by GC.
  const tmp = tmpPathOf(path);
  const fd = openNew(dir, tmp);
  try {
    writeSync(fd, encodeRecord(r));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  // The rename itself reaches the disk with the directory.
  const dfd = openSync(dir, 'r');
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/** `tmp`, created afresh in `dir`; once more if a DEL of the network's last record removed `dir` in between. */
function openNew(dir: string, tmp: string): number {
  for (let attempt = 1; ; attempt++) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    rmSync(tmp, { force: true });
    try {
      return openSync(tmp, 'wx', 0o600);
    } catch (err) {
      if (!isMissing(err) || attempt >= 3) throw err;
    }
  }
}

/** The record and any left-over of a write of it that was killed; the network's directory too once it is empty. */
export function removeRecord(path: string): void {
  rmSync(tmpPathOf(path), { force: true });
  rmSync(path, { force: true });
  try {
    rmdirSync(dirname(path));
  } catch {
    // not empty (other attachments of the network), or gone already
  }
}

/** Every record of `network` with its path (none when the directory is not there). */
export function listRecords(dataDir: string, network: string): { path: string; record: FirewallRecord }[] {
  const dir = recordDir(dataDir, network);
  return namesIn(dir)
    .filter(isRecordName)
    .flatMap((name) => {
      const path = join(dir, name);
      const record = readRecord(path);
      return record === undefined ? [] : [{ path, record }];
    });
}

export function removeLeftover(path: string): void {
  rmSync(path, { force: true });
}

/** The left-overs of killed writes in `network`'s directory, with the attachment each one was for. */
export function listLeftovers(dataDir: string, network: string): { path: string; containerId: string; ifname: string }[] {
  const dir = recordDir(dataDir, network);
  return namesIn(dir).flatMap((name) => {
    const a = attachmentOfName(name, true);
    return a === undefined ? [] : [{ path: join(dir, name), ...a }];
  });
}

function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

/** Every record of every network under `dataDir`. */
export function listAllRecords(dataDir: string): { path: string; record: FirewallRecord }[] {
  try {
    return readdirSync(dataDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => listRecords(dataDir, d.name));
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}
