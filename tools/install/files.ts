// The file operations of `cni-ts install`, each safe against a runtime exec'ing a plugin at any
// moment: a file is written under a temporary name in the same directory, flushed, and renamed
// over the old one (rename(2) replaces a name in one step: an exec sees the old file or the new
// one, never half of one, never none); the directory is flushed after the renames.
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';
import type { Manifest, Present } from './plan.ts';

export const MANIFEST = '.cni-ts-manifest.json';
const TMP_MARK = '.cni-ts-tmp-';
const CHUNK = 1 << 20;

/** What went wrong, for one line on stderr: the operation and the path, with the cause kept. */
export class InstallError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InstallError';
  }
}

const errText = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  return e?.code ? `${e.code}${e.message ? ` (${e.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '')})` : ''}` : String(err);
};

export function fail(what: string, path: string, err: unknown): never {
  throw new InstallError(`${what} ${path}: ${errText(err)}`, { cause: err });
}

// A digest per file identity: the Bun binary is ~110 MB, and --watch checks it every interval.
const digests = new Map<string, string>();
const identity = (st: Stats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;

export function sha256File(path: string, st: Stats = lstatSync(path)): string {
  const id = identity(st);
  const known = digests.get(id);
  if (known !== undefined) return known;
  const h = createHash('sha256');
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    for (let n; (n = readSync(fd, buf, 0, CHUNK, null)) > 0;) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  const d = h.digest('hex');
  digests.set(id, d);
  return d;
}

/** What lies at `name` in `dir`, or undefined. */
export function present(dir: string, name: string): Present | undefined {
  const path = join(dir, name);
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    fail('cannot look at', path, err);
  }
  if (st.isSymbolicLink()) return { kind: 'symlink' };
  if (!st.isFile()) return { kind: 'other', what: st.isDirectory() ? 'a directory' : 'not a regular file' };
  try {
    return { kind: 'file', sha256: sha256File(path, st) };
  } catch (err) {
    fail('cannot read', path, err);
  }
}

export function listTarget(dir: string, names: Iterable<string>): Map<string, Present> {
  const m = new Map<string, Present>();
  for (const n of new Set(names)) {
    const p = present(dir, n);
    if (p !== undefined) m.set(n, p);
  }
  return m;
}

/** Temporary names this process made and has not renamed yet: removed on failure. */
const pending = new Set<string>();

function tmpName(dir: string, name: string): string {
  return join(dir, `.${name}${TMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
}

export function removePending(): void {
  for (const t of pending) {
    try {
      unlinkSync(t);
    } catch {
      // gone already
    }
    pending.delete(t);
  }
}

/** Temporary files of an installer that died (its pid is gone): a run cut short by a kill. */
export function removeStale(dir: string): string[] {
  const removed: string[] = [];
  const re = new RegExp(`^\\..+${TMP_MARK.replace(/\./g, '\\.')}(\\d+)-[0-9a-f]{8}$`);
  for (const f of readdirSync(dir)) {
    const m = re.exec(f);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    try {
      unlinkSync(join(dir, f));
      removed.push(f);
    } catch {
      // another installer removed it first
    }
  }
  return removed;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let off = 0; off < bytes.length;) off += writeSync(fd, bytes, off, bytes.length - off);
}

/** Writes a new file at a temporary name (0755 or `mode`), flushed; returns that name. */
function writeTemp(dir: string, name: string, fill: (fd: number) => void, mode: number): string {
  const tmp = tmpName(dir, name);
  let fd: number;
  try {
    fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    fail('cannot create a file in', dir, err);
  }
  pending.add(tmp);
  try {
    fill(fd);
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    removePending();
    fail('cannot write', join(dir, name), err);
  }
  closeSync(fd);
  return tmp;
}

function renameInto(tmp: string, dir: string, name: string): void {
  try {
    renameSync(tmp, join(dir, name));
  } catch (err) {
    removePending();
    fail('cannot rename into', join(dir, name), err);
  }
  pending.delete(tmp);
}

/** Copies `from` to `dir/name` by temporary name, flush and rename. */
export function putCopy(from: string, dir: string, name: string): void {
  let src: number;
  try {
    src = openSync(from, 'r');
  } catch (err) {
    fail('cannot read', from, err);
  }
  try {
    const tmp = writeTemp(
      dir,
      name,
      (fd) => {
        const buf = Buffer.allocUnsafe(CHUNK);
        for (let n; (n = readSync(src, buf, 0, CHUNK, null)) > 0;) writeAll(fd, buf.subarray(0, n));
      },
      0o755,
    );
    renameInto(tmp, dir, name);
  } finally {
    closeSync(src);
  }
}

/** Makes `dir/name` a hard link of `dir/of` (same bytes, one inode), by temporary name and rename. */
export function putLink(dir: string, of: string, name: string): void {
  const tmp = tmpName(dir, name);
  try {
    linkSync(join(dir, of), tmp);
  } catch (err) {
    fail('cannot link in', dir, err);
  }
  pending.add(tmp);
  renameInto(tmp, dir, name);
}

/** Writes `text` at `dir/name` by temporary name, flush and rename. */
export function putText(dir: string, name: string, text: string, mode = 0o644): void {
  const tmp = writeTemp(dir, name, (fd) => writeAll(fd, Buffer.from(text)), mode);
  renameInto(tmp, dir, name);
}

export function remove(dir: string, name: string): void {
  try {
    unlinkSync(join(dir, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') fail('cannot remove', join(dir, name), err);
  }
}

/** Makes the renames and unlinks in `dir` durable. */
export function syncDir(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch (err) {
    fail('cannot open', dir, err);
  }
  try {
    fsyncSync(fd);
  } catch (err) {
    fail('cannot flush', dir, err);
  } finally {
    closeSync(fd);
  }
}

function isManifest(x: unknown): x is Manifest {
  const m = x as Manifest;
  return (
    typeof m === 'object' &&
    m !== null &&
    typeof m.version === 'string' &&
    (m.form === 'bun' || m.form === 'bundle') &&
    typeof m.files === 'object' &&
    m.files !== null &&
    Object.values(m.files).every((v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)) &&
    Object.keys(m.files).every(safeName) &&
    (m.conflist === undefined || (typeof m.conflist.path === 'string' && typeof m.conflist.sha256 === 'string'))
  );
}

/** A plain file name: nothing that reaches outside the directory. */
export function safeName(n: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(n);
}

export function readManifest(dir: string): Manifest | undefined {
  const path = join(dir, MANIFEST);
  let text: string;
  try {
    const st = lstatSync(path);
    if (!st.isFile()) throw new InstallError(`${path} is not a file: move it away`);
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const buf = Buffer.alloc(st.size);
      readSync(fd, buf, 0, st.size, 0);
      text = buf.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (err instanceof InstallError) throw err;
    fail('cannot read', path, err);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InstallError(`${path} is not valid JSON (${(err as Error).message}): move it away, and every file becomes foreign`, { cause: err });
  }
  if (!isManifest(parsed)) throw new InstallError(`${path} is not a cni-ts manifest: move it away, and every file becomes foreign`);
  return parsed;
}

export function writeManifest(dir: string, m: Manifest): void {
  putText(dir, MANIFEST, `${JSON.stringify({ ...m, by: 'cni-ts install (docs/install.md)' }, null, 2)}\n`);
  syncDir(dir);
}
