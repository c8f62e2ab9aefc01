// The daemon's leases on disk, one file each, so a restart or a SIGKILL loses none (the
// reference keeps them in memory only: plugins#235, plugins#767). A file is whole or absent: it
// is written to a temporary name, synced, renamed over, and the directory synced.
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { mkdirAll } from '../../../lib/linux/mkdir-all.ts';

/** Everything a lease needs to go on after a restart. */
export interface LeaseRecord {
  v: 1;
  clientId: string;
  containerId: string;
  network: string;
  ifname: string;
  /** the pod's netns path, as the plugin gave it (without the daemon's host prefix) */
  netns: string;
  /** the interface's MAC the lease was taken for */
  mac: string;
  /** the options every message carries: code → hex bytes */
  options: [number, string][];
  priority: number;
  /** the last DHCPACK, base64 */
  ack: string;
  /** ms since the epoch */
  renewAt: number;
  rebindAt: number;
  expireAt: number;
}

const SUFFIX = '.lease.json';

export class LeaseStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The directory, made root-only when it is new. */
  init(): void {
    mkdirAll(this.dir, 0o700);
  }

  #file(clientId: string): string {
    // The client ID holds a container ID and a network name: a hash makes any of them a safe file name.
    return join(this.dir, createHash('sha256').update(clientId).digest('hex').slice(0, 40) + SUFFIX);
  }

  save(r: LeaseRecord): void {
    const file = this.#file(r.clientId);
    const tmp = `${file}.tmp-${process.pid}`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(r)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    this.#syncDir();
  }

  remove(clientId: string): void {
    try {
      unlinkSync(this.#file(clientId));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return;
    }
    this.#syncDir();
  }

  /** Every saved lease; a file that cannot be read is reported and left where it is. */
  load(report: (file: string, err: unknown) => void): LeaseRecord[] {
    const records: LeaseRecord[] = [];
    for (const name of readdirSync(this.dir)) {
      const file = join(this.dir, name);
      if (name.includes('.tmp-')) {
        // a write a crash cut short: its lease was never answered to anyone
        unlinkSync(file);
        continue;
      }
      if (!name.endsWith(SUFFIX)) continue;
      try {
        const r = JSON.parse(readFileSync(file, 'utf8')) as LeaseRecord;
        if (r.v !== 1 || typeof r.clientId !== 'string' || this.#file(r.clientId) !== file) throw new Error('not a lease record of this daemon');
        records.push(r);
      } catch (err) {
        report(file, err);
      }
    }
    return records;
  }

  #syncDir(): void {
    const fd = openSync(this.dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}
