// Keeping the native store bounded (runtime/native-store.ts): every build that ever ran left
// its natives and code caches there, so when a build has just written files of its own, it
// removes those of other builds. Only names the store itself makes are ever considered:
//
//   <native>-<16 hex of its sha256>.node                   a native (content-addressed)
//   <program>-<16 hex build id>-<VERB>-<node version>.jscache   a V8 code cache
//   either of them + .<suffix>.tmp                          a writer's temp file
//
// A native is ours when this build embeds a native of that name and hash (two builds with the
// same natives share the files); a cache when it carries our build id (one id for every program
// of a suite build, so the plugins of one build keep each other's) and our Node version. A
// temp file is left alone unless it is older than any write takes: its writer was killed.
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

export interface OwnBuild {
  /** native name → the sha256 (hex, 16 digits or more) of the copy this build embeds */
  readonly natives: Readonly<Record<string, { readonly sha: string }>>;
  /** the build id in this build's cache names; undefined: no cache is ours */
  readonly build: string | undefined;
  /** process.version: caches are per Node version */
  readonly node: string;
}

const NATIVE = /^([A-Za-z0-9_]+)-([0-9a-f]{16})\.node$/;
const CACHE = /^.+-([0-9a-f]{16})-[A-Za-z]+-(v[0-9A-Za-z.]+)\.jscache$/;
const TEMP = /^(.+)\.[0-9a-z-]+\.tmp$/;

/** How long a temp file may be in use by its writer; older, it is a leftover. */
export const TEMP_MAX_AGE_MS = 60 * 60 * 1000;

export type Stale = 'native' | 'cache' | 'temp';

/** Why the file `name` is another build's (or a leftover), or undefined to keep it. Pure. */
export function staleKind(name: string, own: OwnBuild): Stale | undefined {
  const n = NATIVE.exec(name);
  if (n) return own.natives[n[1] ?? '']?.sha.slice(0, 16) === n[2] ? undefined : 'native';
  const c = CACHE.exec(name);
  if (c) return c[1] === own.build && c[2] === own.node ? undefined : 'cache';
  const t = TEMP.exec(name);
  if (t && (NATIVE.test(t[1] ?? '') || CACHE.test(t[1] ?? ''))) return 'temp';
  return undefined;
}

/**
 * Removes from `dir` the regular files staleKind() calls stale (temp files only once older
 * than TEMP_MAX_AGE_MS). Best effort: a file gone already, or one we cannot remove, is skipped.
 * Safe while other plugins run: a native is loaded through an fd the loader holds, so
 * unlinking its name never breaks a load in progress (runtime/native-store-load.ts).
 */
export function sweep(dir: string, own: OwnBuild, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const kind = staleKind(name, own);
    if (kind === undefined) continue;
    const file = join(dir, name);
    try {
      const st = lstatSync(file);
      if (!st.isFile() || (kind === 'temp' && now - st.mtimeMs < TEMP_MAX_AGE_MS)) continue;
      unlinkSync(file);
    } catch {
      // gone already (another sweep), or not ours to remove
    }
  }
}
